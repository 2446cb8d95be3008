import { TaskDTO } from "./api";

export interface TaskState {
  id: number;
  status: string;
  artifactUrl?: string;
}

// TaskStore keeps the task the page shows.
export class TaskStore {
  task: TaskState | null = null;

  setTask(dto: TaskDTO): void {
    this.task = { id: dto.id, status: dto.status, artifactUrl: dto.artifact_url };
  }
}

export const taskStore = new TaskStore();
