// Command guest is a tiny wasip1 program the host tests run in place of the simulator.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"aisimulate/host/wire"
)

func main() {
	switch os.Args[1] {
	case wire.EvaluateCommand:
		evaluator()
	case "pool":
		pool(os.Args[2:])
	case "echo":
		wd, _ := os.Getwd()
		fmt.Printf("args=%q wd=%s X=%s\n", os.Args[1:], wd, os.Getenv("X"))
		fmt.Fprintln(os.Stderr, "to stderr")
	case "read":
		b, err := os.ReadFile(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Stdout.Write(b)
	case "write":
		if err := os.WriteFile(os.Args[2], []byte(os.Args[3]), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	case "exit":
		n, _ := strconv.Atoi(os.Args[2])
		os.Exit(n)
	case "clock":
		t0 := time.Now()
		time.Sleep(20 * time.Millisecond)
		fmt.Printf("year=%d elapsed_ms=%d\n", t0.Year(), time.Since(t0).Milliseconds())
	case "panic":
		fmt.Fprintln(os.Stderr, "progress 50%")
		panic("boom")
	case "oom":
		var keep [][]byte
		for {
			keep = append(keep, make([]byte, 512<<20))
		}
	case "spin":
		fmt.Println("spinning")
		x := 0
		for {
			x++
		}
	}
}
