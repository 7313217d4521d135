"""Tests of engine/run."""
