package traffic

import (
	"encoding/json"
	"math"
	"strconv"
)

// appliedRow is one agent episode of an applied_compute_agentic trace.
type appliedRow struct {
	NumTurns                     *int64    `json:"num_turns"`
	InputPromptLength            *int64    `json:"input_prompt_length"`
	AssistantResponseLength      []int64   `json:"assistant_response_length"`
	ToolCallOutputLength         []int64   `json:"tool_call_output_length"`
	ToolCallLatency              []float64 `json:"tool_call_latency"`
	FinalAssistantResponseLength *int64    `json:"final_assistant_response_length"`
}

// loadAppliedCompute reads an applied_compute_agentic trace: each episode becomes one session
// of num_turns+1 requests over a growing context (docs/traces.md, "applied_compute_agentic").
func (c *traceCtx) loadAppliedCompute() (*Workload, error) {
	file := c.src.Paths[0]
	lr, err := c.openTrace(file)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	bs := c.blockSize
	var sessions []Session
	nextID := uint64(0) // fresh block ids, unique across the file
	for {
		b, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		line := lr.line
		var r appliedRow
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, jsonError(file, line, err)
		}
		if r.NumTurns == nil || *r.NumTurns < 0 {
			return nil, rowError(file, line, "num_turns is required and must be an integer >= 0")
		}
		if r.InputPromptLength == nil || *r.InputPromptLength <= 0 {
			return nil, rowError(file, line, "input_prompt_length is required and must be > 0")
		}
		if r.FinalAssistantResponseLength == nil || *r.FinalAssistantResponseLength < 0 || *r.FinalAssistantResponseLength > maxOutputTokens {
			return nil, rowError(file, line, "final_assistant_response_length is required and must be between 0 and %d", maxOutputTokens)
		}
		n := *r.NumTurns
		if err := c.lim.expand(file, line, n+1); err != nil {
			return nil, err
		}
		if int64(len(r.AssistantResponseLength)) != n || int64(len(r.ToolCallOutputLength)) != n || int64(len(r.ToolCallLatency)) != n {
			return nil, rowError(file, line, "assistant_response_length, tool_call_output_length and tool_call_latency must each have num_turns = %d entries (got %d, %d, %d)", n, len(r.AssistantResponseLength), len(r.ToolCallOutputLength), len(r.ToolCallLatency))
		}
		for k := int64(0); k < n; k++ {
			a, t, l := r.AssistantResponseLength[k], r.ToolCallOutputLength[k], r.ToolCallLatency[k]
			if a < 0 || a > maxOutputTokens {
				return nil, rowError(file, line, "assistant_response_length[%d] = %d must be between 0 and %d", k, a, maxOutputTokens)
			}
			if t < 0 || t > maxContextTokens {
				return nil, rowError(file, line, "tool_call_output_length[%d] = %d must be between 0 and %d", k, t, maxContextTokens)
			}
			if l < 0 || math.IsInf(l, 0) || math.IsNaN(l) {
				return nil, rowError(file, line, "tool_call_latency[%d] = %s must be a finite number of seconds >= 0", k, fmtMs(l))
			}
		}
		cur := *r.InputPromptLength
		// Check the final context before allocating anything.
		total := cur
		for k := int64(0); k < n && total <= maxContextTokens; k++ {
			total += r.AssistantResponseLength[k] + r.ToolCallOutputLength[k]
		}
		if total > maxContextTokens {
			return nil, rowError(file, line, "the episode's context grows past %d tokens; no model serves that", maxContextTokens)
		}
		s := Session{ID: "applied_compute_agentic_session_" + strconv.Itoa(line), Turns: make([]Turn, 0, n+1)}
		var ids []uint32
		for k := int64(0); k <= n; k++ {
			need := traceCeilDiv(int(cur), bs)
			for len(ids) < need {
				ids = append(ids, uint32(nextID))
				nextID++
			}
			t := Turn{
				InputLength: int(cur),
				Prompt:      synthPrompt(make([]Segment, 0, need), ids, bs, int(cur)),
			}
			if k > 0 {
				t.DelayMs = r.ToolCallLatency[k-1] * 1000
			}
			if k < n {
				t.OutputLength = int(r.AssistantResponseLength[k])
				cur += r.AssistantResponseLength[k] + r.ToolCallOutputLength[k]
			} else {
				t.OutputLength = int(*r.FinalAssistantResponseLength)
			}
			s.Turns = append(s.Turns, t)
		}
		sessions = append(sessions, s)
	}
	if len(sessions) == 0 {
		return nil, emptyError(file)
	}
	return c.sessionWorkload(sessions)
}
