"""The correspondence server: storage, API, workers and mail around the pure engine."""
