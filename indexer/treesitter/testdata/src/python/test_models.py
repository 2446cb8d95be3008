from models import Task


class TestTask:
    def test_complete(self):
        t = Task("x")
        t.complete("u")
        assert t.done


def test_plain():
    assert Task("y").artifact is None
