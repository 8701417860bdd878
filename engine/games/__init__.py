"""One module per game; each registers its Game class with ``engine.registry.register``."""
