package outputs

import "strings"

// objectLayout is an object of the per-request record (the record itself, or an element of
// its admission_history or routing_history) written with every member null, in both layouts:
// compact, and pretty as it sits inside a per_request element of prediction.json
// (recordIndent, then 2 spaces per level: docs/semantics/outputs.md §2). Members come in
// canonical (sorted) order, so the members a record writes one after another with no value
// between them (nulls, then the key of the next member that has one) are one substring of
// the text: writing them is one append per layout (recordWriter.member), and a null costs
// no append of its own. The texts of all objects are one string per layout (layouts), so a
// place in them is one offset.
type objectLayout struct {
	// at are the members' places in layouts' texts, indexed by member.
	at []memberSpan
	// end is the end of the object's closing text (after the last member's null) in both texts.
	cEnd, pEnd int
}

// memberSpan is where a member lies in the compact (c) and pretty (p) texts: from Start (its
// comma, or the object's opening brace for the first member) to Null (after its null value);
// its value starts at Key. The object's closing text runs from the last member's Null to the
// object's end.
type memberSpan struct{ cStart, cKey, cNull, pStart, pKey, pNull int }

// recordLayouts are the objects of a record and their texts.
type recordLayouts struct {
	// compact and pretty are the texts of record, admission and route, one after another,
	// each followed by a byte no text starts with ('\x00'), so no object's text ends where
	// another's member starts.
	compact, pretty          string
	record, admission, route objectLayout
}

// layouts are the record's objects (docs/semantics/outputs.md §6.3): the record's members sit
// at depth 1, those of a history element at depth 3.
var layouts = newLayouts(recordNames[:], admissionNames[:], routeNames[:])

// newLayouts lays out the objects of a record, their member names each in sorted order.
func newLayouts(record, admission, route []string) *recordLayouts {
	l := &recordLayouts{}
	l.record = l.add(1, record)
	l.admission = l.add(3, admission)
	l.route = l.add(3, route)
	return l
}

// add appends the texts of an object whose members, names in sorted order, sit at depth.
func (l *recordLayouts) add(depth int, names []string) objectLayout {
	o := objectLayout{at: make([]memberSpan, len(names))}
	c, p := l.compact+"{", l.pretty+"{"
	for i, name := range names {
		if name == "" {
			panic("outputs: a record member has no name")
		}
		if i > 0 {
			if names[i-1] >= name { // a name missing from the list is empty
				panic("outputs: record members out of canonical order: " + name)
			}
			o.at[i].cStart, o.at[i].pStart = len(c), len(p)
			c, p = c+",", p+","
		} else {
			o.at[i].cStart, o.at[i].pStart = len(c)-1, len(p)-1
		}
		c += `"` + name + `":`
		p += "\n" + recordIndent + indentOf(depth) + `"` + name + `": `
		o.at[i].cKey, o.at[i].pKey = len(c), len(p)
		c, p = c+"null", p+"null"
		o.at[i].cNull, o.at[i].pNull = len(c), len(p)
	}
	c, p = c+"}", p+"\n"+recordIndent+indentOf(depth-1)+"}"
	o.cEnd, o.pEnd = len(c), len(p)
	l.compact, l.pretty = c+"\x00", p+"\x00"
	return o
}

// keyBefore is the name of the member whose key ends at key in the compact text (`"name":`).
func (l *recordLayouts) keyBefore(key int) string {
	open := strings.LastIndexByte(l.compact[:key-2], '"')
	return l.compact[open+1 : key-2]
}

// indentOf is the indentation of depth in the pretty layout.
func indentOf(depth int) string {
	s := ""
	for range depth {
		s += "  "
	}
	return s
}

// structural is a string between values in both layouts: list brackets and separators.
type structural struct{ compact, pretty string }

// The structural strings of a record whose lists sit at depth 1 and their elements at depth 2.
var (
	listOpen         = structural{compact: "[", pretty: "[\n" + recordIndent + indentOf(2)}
	elementSeparator = structural{compact: ",", pretty: ",\n" + recordIndent + indentOf(2)}
	listClose        = structural{compact: "]", pretty: "\n" + recordIndent + indentOf(1) + "]"}
)

// Members of a record (docs/semantics/outputs.md §6.3), in canonical order.
const (
	kAdmissionCount = iota
	kAdmissionHistory
	kArrivalTimeMs
	kDecodeAdmitMs
	kDecodeReusedInputTokens
	kDecodeRouteOverlapTokens
	kDecodeWorkerIdx
	kDestinationActivatedMs
	kDestinationReservedMs
	kDispatchedAtMs
	kE2eLatencyMs
	kFirstAdmitMs
	kFirstTokenMs
	kInputLength
	kItlMs
	kLastTokenMs
	kOutputLength
	kPlayID
	kPrefillAdmitMs
	kPrefillRouteOverlapTokens
	kPrefillWorkerIdx
	kPressureRecordOrdinals
	kReadmissionCount
	kRequestID
	kRequestedOutputLength
	kReusedInputTokens
	kRoutingHistory
	kSessionID
	kSourceHeldMs
	kSourceReleasedMs
	kTerminalStatus
	kTerminalTimeMs
	kTtftMs
	kTtstMs
	kTurnIndex
	kUUID
	recordMembers
)

// recordNames are the member keys of the record by index (an index out of range does not compile; one left out
// is empty, refused by newObjectLayout).
var recordNames = [recordMembers]string{
	kAdmissionCount:            "admission_count",
	kAdmissionHistory:          "admission_history",
	kArrivalTimeMs:             "arrival_time_ms",
	kDecodeAdmitMs:             "decode_admit_ms",
	kDecodeReusedInputTokens:   "decode_reused_input_tokens",
	kDecodeRouteOverlapTokens:  "decode_route_overlap_tokens",
	kDecodeWorkerIdx:           "decode_worker_idx",
	kDestinationActivatedMs:    "destination_activated_ms",
	kDestinationReservedMs:     "destination_reserved_ms",
	kDispatchedAtMs:            "dispatched_at_ms",
	kE2eLatencyMs:              "e2e_latency_ms",
	kFirstAdmitMs:              "first_admit_ms",
	kFirstTokenMs:              "first_token_ms",
	kInputLength:               "input_length",
	kItlMs:                     "itl_ms",
	kLastTokenMs:               "last_token_ms",
	kOutputLength:              "output_length",
	kPlayID:                    "play_id",
	kPrefillAdmitMs:            "prefill_admit_ms",
	kPrefillRouteOverlapTokens: "prefill_route_overlap_tokens",
	kPrefillWorkerIdx:          "prefill_worker_idx",
	kPressureRecordOrdinals:    "pressure_record_ordinals",
	kReadmissionCount:          "readmission_count",
	kRequestID:                 "request_id",
	kRequestedOutputLength:     "requested_output_length",
	kReusedInputTokens:         "reused_input_tokens",
	kRoutingHistory:            "routing_history",
	kSessionID:                 "session_id",
	kSourceHeldMs:              "source_held_ms",
	kSourceReleasedMs:          "source_released_ms",
	kTerminalStatus:            "terminal_status",
	kTerminalTimeMs:            "terminal_time_ms",
	kTtftMs:                    "ttft_ms",
	kTtstMs:                    "ttst_ms",
	kTurnIndex:                 "turn_index",
	kUUID:                      "uuid",
}

// Members of an admission_history element, in canonical order.
const (
	kAdmissionOrdinal = iota
	kAtMs
	kIsReadmission
	kAdmissionPool
	kPoolAdmissionOrdinal
	kAdmissionReusedInputTokens
	admissionMembers
)

// admissionNames are the member keys of an admission_history element by index (an index out of range does not compile; one left out
// is empty, refused by newObjectLayout).
var admissionNames = [admissionMembers]string{
	kAdmissionOrdinal:           "admission_ordinal",
	kAtMs:                       "at_ms",
	kIsReadmission:              "is_readmission",
	kAdmissionPool:              "pool",
	kPoolAdmissionOrdinal:       "pool_admission_ordinal",
	kAdmissionReusedInputTokens: "reused_input_tokens",
}

// Members of a routing_history element, in canonical order.
const (
	kBestAvailableOverlapBlocks = iota
	kDPRank
	kLogicalWorkerID
	kOutcome
	kOverlapRegretBlocks
	kPlacementReplicaID
	kRoutePool
	kQueueEnteredAtMs
	kQueueWaitMs
	kReleasedAtMs
	kReportedOverlapTokens
	kSchedulerID
	kSelectedOverlapBlocks
	routeMembers
)

// routeNames are the member keys of a routing_history element by index (an index out of range does not compile; one left out
// is empty, refused by newObjectLayout).
var routeNames = [routeMembers]string{
	kBestAvailableOverlapBlocks: "best_available_overlap_blocks",
	kDPRank:                     "dp_rank",
	kLogicalWorkerID:            "logical_worker_id",
	kOutcome:                    "outcome",
	kOverlapRegretBlocks:        "overlap_regret_blocks",
	kPlacementReplicaID:         "placement_replica_id",
	kRoutePool:                  "pool",
	kQueueEnteredAtMs:           "queue_entered_at_ms",
	kQueueWaitMs:                "queue_wait_ms",
	kReleasedAtMs:               "released_at_ms",
	kReportedOverlapTokens:      "reported_overlap_tokens",
	kSchedulerID:                "scheduler_id",
	kSelectedOverlapBlocks:      "selected_overlap_blocks",
}
