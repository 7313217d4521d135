"""Tests of engine/model."""
