import { TaskState } from "./store";

// renderTask shows a task and a link to its artifact.
export function renderTask(task: TaskState): string {
  const link = task.artifactUrl ? `<a href="${task.artifactUrl}">artifact</a>` : "no artifact yet";
  return `<div>Task ${task.id}: ${task.status} ${link}</div>`;
}
