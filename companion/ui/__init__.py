"""Kivy kiosk screens and their presenters (not built yet; see the open issues)."""
