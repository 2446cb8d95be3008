module example.com/tasks

go 1.22
