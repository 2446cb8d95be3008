#pragma once

#include <map>
#include <string>
#include "task.hpp"

namespace tasks {

/// Base for every store.
class BaseStore {
public:
    virtual ~BaseStore() = default;
    virtual int size() const = 0;
};

struct Stats {
    int saves = 0;
    int misses;
};

enum class Status { New, Done };

// Store keeps tasks by id.
class Store : public BaseStore, private Stats {
public:
    explicit Store(int capacity);
    ~Store() override;

    bool save(const Task &task);
    Task *find(int id);
    int size() const override { return static_cast<int>(items_.size()); }

    static constexpr int kMax = 16;

private:
    std::map<int, Task> items_;
    int capacity_;
};

template <typename T>
class Cache {
public:
    T get(const std::string &key) { return values_[key]; }
    void put(const std::string &key, T value) {
        values_[key] = value;
        ++hits_;
    }

private:
    std::map<std::string, T> values_;
    int hits_ = 0;
};

using TaskCache = Cache<Task>;

}  // namespace tasks
