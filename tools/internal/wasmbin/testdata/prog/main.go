// Command prog exercises what the dispatch of Go's WebAssembly functions serves: loops and
// branches, calls, stack growth (which unwinds and re-enters every frame through its resume
// point), goroutine switches, defer, panic and recover, closures and maps. The wasmjumps test
// runs it before and after the rewrite and compares its output.
package main

import (
	"fmt"
	"sort"
	"strings"
)

func collatz(n int) (steps int) {
	for n != 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

// deep recurses with a large frame, so the goroutine stack grows many times.
func deep(n int) int {
	var pad [64]int
	pad[n%64] = n
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[n%64]%7
}

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

func classify(s string) string {
	switch {
	case strings.HasPrefix(s, "a"):
		return "A"
	case len(s) > 5:
		return "long"
	case s == "":
		return "empty"
	default:
		return "other"
	}
}

func main() {
	total := 0
	for i := 1; i < 3000; i++ {
		total += collatz(i)
	}
	fmt.Println("collatz", total)
	fmt.Println("deep", deep(20000))
	q, err := safeDiv(7, 0)
	fmt.Println("div", q, err)
	ch := make(chan int)
	done := make(chan []int)
	go func() {
		var got []int
		for v := range ch {
			got = append(got, v*v)
		}
		done <- got
	}()
	for i := 0; i < 50; i++ {
		ch <- i
	}
	close(ch)
	sq := <-done
	fmt.Println("squares", len(sq), sq[49])
	m := map[string]int{}
	for _, w := range strings.Fields("a bb ccc dddddd apple banana  pear avocado kiwi") {
		m[classify(w)]++
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, m[k])
	}
	adders := make([]func(int) int, 5)
	for i := range adders {
		adders[i] = func(x int) int { return x + i }
	}
	s := 0
	for i, f := range adders {
		s += f(i)
	}
	fmt.Println("closures", s)
}
