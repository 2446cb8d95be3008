"""Third-party code kept with pyshop."""
