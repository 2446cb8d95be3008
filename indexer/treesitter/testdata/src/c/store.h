#ifndef STORE_H
#define STORE_H

#include <stddef.h>
#include "task.h"

/* Upper bound on stored tasks. */
#define MAX_TASKS 16
#define SQUARE(x) ((x) * (x))

/* Status of a task. */
enum status {
    STATUS_NEW,
    STATUS_DONE = 2,
};

// A store keeps tasks by id.
struct store {
    struct task *items[MAX_TASKS];
    size_t count;
    int (*on_save)(const struct task *t);
};

typedef struct store store_t;
typedef int (*task_cb)(const struct task *t);

/* A linked list of tasks. */
typedef struct node {
    struct node *next;
    int value;
} node_t;

typedef union {
    int i;
    float f;
} number;

extern int store_errors;

/* store_new allocates an empty store. */
store_t *store_new(void);
int store_save(store_t *s, struct task *t);
const struct task *store_find(const store_t *s, int id);

#endif
