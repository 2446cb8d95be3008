// TaskDTO is the JSON the server sends for a task.
export interface TaskDTO {
  id: number;
  status: string;
  artifact_url?: string;
}

// fetchTask asks the server for one task.
export async function fetchTask(id: number): Promise<TaskDTO> {
  const res = await fetch(`/tasks/${id}`);
  return (await res.json()) as TaskDTO;
}
