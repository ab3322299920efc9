package outputs

// recordKey is a member key of the per-request record (or a structural string) in both
// layouts: compact, `,"name":`, and pretty, the comma, a line break, the indentation of the
// member inside a per_request element of prediction.json (recordIndent, then 2 spaces per
// level: docs/semantics/outputs.md §2) and `"name": `. The first member of an object takes
// both without their first byte (the comma). Made once, so writing a key is one append per
// layout (AppendRecordBoth).
type recordKey struct {
	name            string
	compact, pretty string
}

// memberKey is the key name of a member at depth (1 for the record's members, 3 for the
// members of an admission_history or routing_history element).
func memberKey(name string, depth int) recordKey {
	return recordKey{name: name, compact: `,"` + name + `":`, pretty: ",\n" + recordIndent + indentOf(depth) + `"` + name + `": `}
}

// indentOf is the indentation of depth in the pretty layout.
func indentOf(depth int) string {
	s := ""
	for range depth {
		s += "  "
	}
	return s
}

// The structural strings of a record whose lists sit at depth 1 and their elements at depth 2.
var (
	listOpen         = recordKey{compact: "[", pretty: "[\n" + recordIndent + indentOf(2)}
	elementSeparator = recordKey{compact: ",", pretty: ",\n" + recordIndent + indentOf(2)}
	elementClose     = recordKey{compact: "}", pretty: "\n" + recordIndent + indentOf(2) + "}"}
	listClose        = recordKey{compact: "]", pretty: "\n" + recordIndent + indentOf(1) + "]"}
	recordClose      = recordKey{compact: "}", pretty: "\n" + recordIndent + "}"}
)

// Members of a record (docs/semantics/outputs.md §6.3).
var (
	kAdmissionCount            = memberKey("admission_count", 1)
	kAdmissionHistory          = memberKey("admission_history", 1)
	kArrivalTimeMs             = memberKey("arrival_time_ms", 1)
	kDecodeAdmitMs             = memberKey("decode_admit_ms", 1)
	kDecodeReusedInputTokens   = memberKey("decode_reused_input_tokens", 1)
	kDecodeRouteOverlapTokens  = memberKey("decode_route_overlap_tokens", 1)
	kDecodeWorkerIdx           = memberKey("decode_worker_idx", 1)
	kDestinationActivatedMs    = memberKey("destination_activated_ms", 1)
	kDestinationReservedMs     = memberKey("destination_reserved_ms", 1)
	kDispatchedAtMs            = memberKey("dispatched_at_ms", 1)
	kE2eLatencyMs              = memberKey("e2e_latency_ms", 1)
	kFirstAdmitMs              = memberKey("first_admit_ms", 1)
	kFirstTokenMs              = memberKey("first_token_ms", 1)
	kInputLength               = memberKey("input_length", 1)
	kItlMs                     = memberKey("itl_ms", 1)
	kLastTokenMs               = memberKey("last_token_ms", 1)
	kOutputLength              = memberKey("output_length", 1)
	kPlayID                    = memberKey("play_id", 1)
	kPrefillAdmitMs            = memberKey("prefill_admit_ms", 1)
	kPrefillRouteOverlapTokens = memberKey("prefill_route_overlap_tokens", 1)
	kPrefillWorkerIdx          = memberKey("prefill_worker_idx", 1)
	kPressureRecordOrdinals    = memberKey("pressure_record_ordinals", 1)
	kReadmissionCount          = memberKey("readmission_count", 1)
	kRequestID                 = memberKey("request_id", 1)
	kRequestedOutputLength     = memberKey("requested_output_length", 1)
	kReusedInputTokens         = memberKey("reused_input_tokens", 1)
	kRoutingHistory            = memberKey("routing_history", 1)
	kSessionID                 = memberKey("session_id", 1)
	kSourceHeldMs              = memberKey("source_held_ms", 1)
	kSourceReleasedMs          = memberKey("source_released_ms", 1)
	kTerminalStatus            = memberKey("terminal_status", 1)
	kTerminalTimeMs            = memberKey("terminal_time_ms", 1)
	kTtftMs                    = memberKey("ttft_ms", 1)
	kTtstMs                    = memberKey("ttst_ms", 1)
	kTurnIndex                 = memberKey("turn_index", 1)
	kUUID                      = memberKey("uuid", 1)
)

// Members of an admission_history element.
var (
	kAdmissionOrdinal           = memberKey("admission_ordinal", 3)
	kAtMs                       = memberKey("at_ms", 3)
	kIsReadmission              = memberKey("is_readmission", 3)
	kPool                       = memberKey("pool", 3)
	kPoolAdmissionOrdinal       = memberKey("pool_admission_ordinal", 3)
	kAdmissionReusedInputTokens = memberKey("reused_input_tokens", 3)
)

// Members of a routing_history element.
var (
	kBestAvailableOverlapBlocks = memberKey("best_available_overlap_blocks", 3)
	kDPRank                     = memberKey("dp_rank", 3)
	kLogicalWorkerID            = memberKey("logical_worker_id", 3)
	kOutcome                    = memberKey("outcome", 3)
	kOverlapRegretBlocks        = memberKey("overlap_regret_blocks", 3)
	kPlacementReplicaID         = memberKey("placement_replica_id", 3)
	kQueueEnteredAtMs           = memberKey("queue_entered_at_ms", 3)
	kQueueWaitMs                = memberKey("queue_wait_ms", 3)
	kReleasedAtMs               = memberKey("released_at_ms", 3)
	kReportedOverlapTokens      = memberKey("reported_overlap_tokens", 3)
	kSchedulerID                = memberKey("scheduler_id", 3)
	kSelectedOverlapBlocks      = memberKey("selected_overlap_blocks", 3)
)
