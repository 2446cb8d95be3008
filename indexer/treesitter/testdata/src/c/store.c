#include <stdlib.h>
#include <string.h>
#include "store.h"

int store_errors = 0;
static int saves;
static const int grow_by = 2;

static void log_save(const struct task *t) {
    saves++;
}

/* store_new allocates an empty store. */
store_t *store_new(void) {
    store_t *s = malloc(sizeof(store_t));
    memset(s, 0, sizeof *s);
    s->on_save = log_save;
    return s;
}

int store_save(store_t *s, struct task *t) {
    if (s->count >= MAX_TASKS) {
        store_errors += 1;
        return -1;
    }
    s->items[s->count++] = t;
    t->status = STATUS_DONE;
    if (s->on_save != NULL) {
        s->on_save(t);
    }
    return 0;
}

const struct task *store_find(const store_t *s, int id) {
    for (size_t i = 0; i < s->count; i++) {
        struct task *t = s->items[i];
        if (t->id == id) {
            return t;
        }
    }
    return NULL;
}

int main(void) {
    store_t *s = store_new();
    struct task t = { .id = 1, .status = STATUS_NEW };
    number n;
    store_t empty = (store_t){ .count = 0 };
    n.i = SQUARE(3);
    store_save(s, &t);
    return store_find(s, 1) ? 0 : 1;
}
