"""Shared by every stage: the file schemas, errors, file I/O, the YAML reader, settings, secret scrubbing."""
