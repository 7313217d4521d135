"""Tests of engine/bank."""
