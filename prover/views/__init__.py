"""Views of searches and runs for people: tree pages, the live run view, interactive proving."""
