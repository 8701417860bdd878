"""Celery tasks: thin wrappers that take ids and call the service layer."""
