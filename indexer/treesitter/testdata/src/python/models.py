"""Task models."""
import os
from typing import Optional as Opt, List
from .base import Base, registry

DEFAULT_NAME = "task"
counter = 0


class Task(Base):
    """A unit of work."""

    status: str = "new"

    def __init__(self, name: str, artifact: Opt[str] = None):
        self.name = name
        self.artifact = artifact

    @property
    def done(self) -> bool:
        return self.artifact is not None

    def complete(self, url):
        """Store the artifact."""
        self.artifact = url
        self.save()
        registry[self.name] = self
        global counter
        counter += 1

    def save(self):
        store = Store()
        store.put(self)


def make_task(name):
    t = Task(name=name, artifact=None)
    t.artifact = os.path.join("a", name)
    return t
