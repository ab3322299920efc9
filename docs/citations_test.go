// Package docs holds the checks that keep the documentation and the code in step; the
// documentation itself is the Markdown beside this file.
package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var (
	// docName is a document of the repository named in a comment.
	docName = regexp.MustCompile(`docs/[A-Za-z0-9_/.-]+\.md`)
	// anotherDoc ends a citation's scope: any other Markdown file named after it.
	anotherDoc = regexp.MustCompile(`[A-Za-z0-9_/-]+\.md`)
	// sectionRef is one cited section, "§6" or "§6.2"; a range "§6–§8" is two of them.
	sectionRef = regexp.MustCompile(`§(\d+(?:\.\d+)*)`)
	// sectionHeading is a numbered Markdown heading, "## 6. vLLM …" or "### 6.2 Algorithm".
	sectionHeading = regexp.MustCompile(`^#{1,6} +(\d+(?:\.\d+)*)\.? `)
)

// citationScope is the text after a document's name that belongs to its citation: up to
// the first closing parenthesis, semicolon, end of sentence or other document name.
func citationScope(rest string) string {
	end := len(rest)
	for _, stop := range []string{")", ";", ". ", ".\n", "\n\n"} {
		if i := strings.Index(rest, stop); i >= 0 && i < end {
			end = i
		}
	}
	if loc := anotherDoc.FindStringIndex(rest); loc != nil && loc[0] < end {
		end = loc[0]
	}
	return rest[:end]
}

// headings returns the section numbers a document has as headings.
func headings(t *testing.T, root, doc string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if m := sectionHeading.FindStringSubmatch(line); m != nil && !inFence {
			out[m[1]] = true
		}
	}
	return out
}

// Every section a Go comment cites as `docs/<file>.md §N[.M]` (lists such as "§7, §11.3"
// and ranges such as "§6–§8" included) is a numbered heading of that document, and every
// document a comment names exists, so a renumbered or lost section fails here instead of
// leaving code pointing at nothing.
func TestCitedSectionsExist(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]map[string]bool{}
	var missing []string
	cited := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "build", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, g := range f.Comments {
			text := g.Text()
			for _, loc := range docName.FindAllStringIndex(text, -1) {
				doc := text[loc[0]:loc[1]]
				if docs[doc] == nil {
					docs[doc] = headings(t, root, doc)
				}
				if docs[doc] == nil {
					missing = append(missing, rel+": "+doc+" does not exist")
					continue
				}
				for _, m := range sectionRef.FindAllStringSubmatch(citationScope(text[loc[1]:]), -1) {
					cited++
					if !docs[doc][m[1]] {
						missing = append(missing, rel+": "+doc+" §"+m[1]+" is not a heading of it")
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Error(m)
	}
	if cited < 100 {
		t.Errorf("found %d section citations; the scan no longer sees the code's comments", cited)
	}
}
