"""retry: call a function again when it raises (vendored, version 1.2)."""
import functools
import time


def retry(attempts=3, delay=0.1, backoff=2.0, exceptions=(Exception,)):
    """Retry the decorated function when it raises one of exceptions,
    waiting delay seconds, then delay*backoff, between attempts."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            wait = delay
            for attempt in range(attempts):
                try:
                    return fn(*args, **kwargs)
                except exceptions:
                    if attempt == attempts - 1:
                        raise
                    time.sleep(wait)
                    wait *= backoff

        return wrapper

    return decorate
