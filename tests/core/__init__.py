"""Tests of engine/core."""
