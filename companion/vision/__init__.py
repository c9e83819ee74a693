"""Board reader: camera frame -> 25 cell readings (not built yet; see the open issue)."""
