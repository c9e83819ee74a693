"""The Kivy kiosk: screens (kv), their presenters (plain Python), settings and strings."""
