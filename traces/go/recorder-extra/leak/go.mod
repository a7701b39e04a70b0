module leak

go 1.21
