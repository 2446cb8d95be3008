//! In-memory task store.
use std::collections::HashMap;
use std::fmt::{self, Display};
use crate::model::Task as Item;
use super::util::*;

/// Upper bound on stored tasks.
pub const MAX_TASKS: usize = 10;
static mut COUNTER: u32 = 0;

pub type TaskMap = HashMap<u32, Item>;

/// Status of a task.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    New,
    Done { code: i32 },
}

/// Store keeps tasks by id.
pub struct Store {
    items: TaskMap,
    pub count: usize,
}

pub union Bits {
    int: u32,
    float: f32,
}

pub trait Named: fmt::Debug {
    fn name(&self) -> String;
    fn describe(&self) -> String {
        format!("<{}>", self.name())
    }
}

impl Store {
    /// new returns an empty store.
    pub fn new() -> Self {
        Store { items: HashMap::new(), count: 0 }
    }

    pub fn save(&mut self, task: Item) -> Option<&Item> {
        let id: u32 = task.id;
        self.items.insert(id, task);
        self.count += 1;
        unsafe { COUNTER += 1; }
        self.items.get(&id)
    }
}

impl Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Store({})", self.count)
    }
}

// square multiplies a value by itself.
macro_rules! square {
    ($x:expr) => { $x * $x };
}

mod tests {
    use super::*;

    #[test]
    fn saves_task() {
        let mut s = Store::new();
        let count = 1;
        let t = Item { id: 3, count };
        s.save(t);
        assert_eq!(s.count, square!(count));
    }
}
