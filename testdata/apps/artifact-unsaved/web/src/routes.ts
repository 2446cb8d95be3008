import { fetchTask } from "./api";
import { taskStore } from "./store";
import { renderTask } from "./render";

// loadTaskRoute runs when the task page is opened or refreshed.
export async function loadTaskRoute(id: number): Promise<string> {
  const dto = await fetchTask(id);
  taskStore.setTask(dto);
  return renderTask(taskStore.task!);
}

// onRefreshClick is the page's refresh button.
export function onRefreshClick(id: number): void {
  loadTaskRoute(id);
}
