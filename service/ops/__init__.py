"""Operating the service: health, metrics, status and log format."""
