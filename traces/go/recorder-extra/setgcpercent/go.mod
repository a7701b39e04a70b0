module setgcpercent

go 1.21
