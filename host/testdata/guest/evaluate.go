package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"
	"unsafe"

	"aisimulate/host/wire"
)

//go:wasmimport aisimulate_host call
func hostCallImport(ptr unsafe.Pointer, size uint32) uint32

//go:wasmimport aisimulate_host result
func hostResultImport(ptr unsafe.Pointer)

// callHost sends one wire.Call and decodes the reply (as wasm/cli does).
func callHost(c wire.Call) wire.Reply {
	b, _ := json.Marshal(c)
	n := hostCallImport(unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b)))
	reply := make([]byte, n)
	if n > 0 {
		hostResultImport(unsafe.Pointer(&reply[0]))
	}
	var r wire.Reply
	if err := json.Unmarshal(reply, &r); err != nil {
		fmt.Fprintln(os.Stderr, "bad reply:", err)
		os.Exit(3)
	}
	return r
}

// evaluator is the guest's `__evaluate`: it answers each request frame after 300 ms with
// {"request": <the request>, "instance": <an id drawn when the instance started>}.
func evaluator() {
	var id [8]byte
	rand.Read(id[:])
	in, out := bufio.NewReader(os.Stdin), bufio.NewWriter(os.Stdout)
	for {
		req, err := wire.ReadFrame(in)
		if err != nil {
			return
		}
		time.Sleep(300 * time.Millisecond)
		b, _ := json.Marshal(map[string]any{"request": json.RawMessage(req), "instance": hex.EncodeToString(id[:])})
		wire.WriteFrame(out, b)
		out.Flush()
	}
}

// pool runs `pool PARALLELISM REQUESTS [REMOTE...]`: start, one evaluate call with REQUESTS
// requests {"i": n}, finish; it prints the start reply, then each outcome on a line.
func pool(args []string) {
	par, _ := strconv.Atoi(args[0])
	n, _ := strconv.Atoi(args[1])
	start := callHost(wire.Call{Op: wire.OpStart, Start: &wire.Start{Parallelism: par, Remote: args[2:], ModuleVersion: "v1"}})
	b, _ := json.Marshal(start)
	fmt.Println(string(b))
	if start.Error != "" || start.InProcess {
		return
	}
	call := wire.Call{Op: wire.OpEvaluate}
	for i := range n {
		call.Requests = append(call.Requests, json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)))
	}
	r := callHost(call)
	if r.Error != "" {
		fmt.Println("error:", r.Error)
	}
	for _, o := range r.Outcomes {
		fmt.Println(string(o))
	}
	callHost(wire.Call{Op: wire.OpFinish})
}
