"""The model server: the only HTTP client, reply shapes and bounds, server kinds, preflight, the embedded server."""
