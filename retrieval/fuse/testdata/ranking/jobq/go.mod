module example.com/jobq

go 1.22
