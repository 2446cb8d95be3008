#include "store.hpp"

#include <iostream>

namespace tasks {

static int instances = 0;

Store::Store(int capacity) : capacity_(capacity) {
    instances++;
}

Store::~Store() {
    instances -= 1;
}

// save stores a copy of task.
bool Store::save(const Task &task) {
    if (static_cast<int>(items_.size()) >= capacity_) {
        this->misses += 1;
        return false;
    }
    items_[task.id] = task;
    saves++;
    std::cout << "saved " << task.id << std::endl;
    return true;
}

Task *Store::find(int id) {
    auto it = items_.find(id);
    if (it == items_.end()) {
        return nullptr;
    }
    return &it->second;
}

}  // namespace tasks

template <typename T>
T clamp(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

int main() {
    tasks::Store store(4);
    auto *cache = new tasks::TaskCache();
    Task t{1, tasks::Status::New};
    store.save(t);
    cache->put("one", t);
    Task *found = store.find(clamp(1, 0, 3));
    delete cache;
    return found != nullptr ? 0 : 1;
}
