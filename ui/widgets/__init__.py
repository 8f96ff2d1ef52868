"""Widgets shared by several panels."""
