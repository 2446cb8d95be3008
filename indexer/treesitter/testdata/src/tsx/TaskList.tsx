import React, { useState, useEffect } from "react";
import type { Task } from "../types";
import { Store } from "../store";
import * as styles from "./TaskList.module.css";
import "./TaskList.css";

export interface TaskListProps {
  store: Store;
  title?: string;
  onSelect(task: Task): void;
}

/** Renders one row of the task list. */
function TaskRow({ task, selected }: { task: Task; selected: boolean }) {
  return (
    <li className={selected ? styles.selected : undefined}>
      {task.title}
    </li>
  );
}

/** Lists tasks and lets the user pick one. */
export const TaskList: React.FC<TaskListProps> = ({ store, title = "Tasks", onSelect }) => {
  const [tasks, setTasks] = useState<Task[]>([]);
  const [current, setCurrent] = useState<string | null>(null);

  useEffect(() => {
    setTasks([...store]);
  }, [store]);

  const choose = (task: Task) => {
    setCurrent(task.id);
    onSelect(task);
  };

  return (
    <section>
      <h2>{title}</h2>
      <ul>
        {tasks.map((t) => (
          <TaskRow key={t.id} task={t} selected={t.id === current} />
        ))}
      </ul>
      <Button label="Refresh" onClick={() => setTasks([...store])} />
    </section>
  );
};

export default class Counter extends React.Component<{}, { count: number }> {
  state = { count: 0 };

  increment = () => {
    this.setState({ count: this.state.count + 1 });
  };

  render() {
    return <Button label={String(this.state.count)} onClick={this.increment} />;
  }
}

function Button(props: { label: string; onClick: () => void }) {
  return <button onClick={props.onClick}>{props.label}</button>;
}
