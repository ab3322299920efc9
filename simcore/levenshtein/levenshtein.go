// Package levenshtein is the edit distance behind the "did you mean" hints of the
// configuration decoder (simcore/spec) and the catalogs (simcore/catalog).
package levenshtein

// Distance is the Levenshtein distance of a and b in bytes: the fewest insertions, deletions
// and substitutions that turn a into b (99 when either is longer than 64 bytes, which no
// hint needs). It ranks the "did you mean" hints of configuration keys and catalog ids.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
