package com.example.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TaskStoreTest {
    private TaskStore store;

    @BeforeEach
    void setUp() {
        store = new TaskStore(4);
    }

    @Test
    void savesTask() {
        Task task = new Task(1);
        store.save(task);
        assertEquals(Status.DONE, task.status);
        assertEquals(task, store.load(1));
    }

    @Test
    public void missCounts() {
        var other = new TaskStore(2);
        other.load(7);
        assertEquals(null, other.load(8));
    }

    @Test
    void savesMany() {
        int saved = 0;
        for (int i = 0; i < 3; i++) {
            store.save(fixture(i));
            saved += 1;
        }
        assertEquals(3, saved);
        assertEquals(2, store.load(2).id);
    }

    private Task fixture(int id) {
        return new Task(id);
    }
}
