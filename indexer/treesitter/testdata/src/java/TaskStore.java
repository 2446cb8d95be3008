package com.example.tasks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.*;
import static java.util.Objects.requireNonNull;

/** Status of a task. */
public enum Status {
    NEW, RUNNING, DONE
}

/**
 * Store persists tasks.
 */
interface Store<T> extends AutoCloseable {
    T load(int id);
    void save(T task);
}

@interface Audited {
    String value() default "";
}

record Point(int x, int y) {}

// TaskStore keeps tasks in memory.
public class TaskStore extends BaseStore implements Store<Task>, Runnable {
    public static final int MAX = 10;
    private final List<Task> items = new ArrayList<>();
    private int count, misses;

    public TaskStore(int capacity) {
        this.count = 0;
        misses = capacity;
    }

    @Override
    public Task load(int id) {
        for (Task t : items) {
            if (t.id == id) {
                return t;
            }
        }
        misses++;
        return null;
    }

    @Audited("save")
    public void save(Task task) {
        requireNonNull(task);
        Task copy = new Task(task.id);
        var log = new Logger("store");
        items.add(copy);
        count += 1;
        task.status = Status.DONE;
        log.info(String.valueOf(count));
    }

    private static int helper(Task[] tasks, Map<String, Task> index) {
        return tasks.length + index.size();
    }

    @Override
    public void run() {}

    static class Entry {
        int key;
    }
}
