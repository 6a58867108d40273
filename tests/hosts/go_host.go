// tests/hosts/go_host.go EXT SMOKE: Go's database/sql with mattn/go-sqlite3
// (Debian golang-github-mattn-go-sqlite3-dev, built against the system
// SQLite) loads the extension and runs the shared smoke set.
// Prints "N passed, N failed".
package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"
)

func main() {
	ext, smoke := os.Args[1], os.Args[2]
	sql.Register("sqlite3_nosql", &sqlite3.SQLiteDriver{Extensions: []string{ext}})
	db, err := sql.Open("sqlite3_nosql", ":memory:")
	if err != nil {
		fmt.Println("FAIL go: open:", err)
		os.Exit(1)
	}
	db.SetMaxOpenConns(1) // one connection runs the whole file
	f, err := os.Open(smoke)
	if err != nil {
		fmt.Println("FAIL go:", err)
		os.Exit(1)
	}
	defer f.Close()
	pass, fail := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, want, hasWant := strings.Cut(line, "\t")
		got := first(db, q)
		if !hasWant {
			want = got
			if strings.HasPrefix(got, "error") {
				want = ""
			}
		}
		if got == want {
			pass++
		} else {
			fail++
			fmt.Printf("FAIL go: %s\n  expected: %s\n  actual:   %s\n", q, want, got)
		}
	}
	fmt.Printf("%d passed, %d failed\n", pass, fail)
	if fail > 0 {
		os.Exit(1)
	}
}

// first renders the first row of q, columns joined by '|'.
func first(db *sql.DB, q string) string {
	rows, err := db.Query(q)
	if err != nil {
		return "error: " + err.Error()
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "error: " + err.Error()
		}
		return ""
	}
	vals := make([]interface{}, len(cols))
	ptrs := make([]interface{}, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return "error: " + err.Error()
	}
	parts := make([]string, len(cols))
	for i, v := range vals {
		switch x := v.(type) {
		case nil:
			parts[i] = "NULL"
		case []byte:
			parts[i] = string(x)
		case float64:
			parts[i] = pyFloat(x)
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return strings.Join(parts, "|")
}

// pyFloat prints a real as the smoke set writes it (Python's repr: 2.0, 0.5).
func pyFloat(x float64) string {
	s := fmt.Sprintf("%v", x)
	if !strings.ContainsAny(s, ".eE") && !strings.Contains(s, "Inf") && !strings.Contains(s, "NaN") {
		s += ".0"
	}
	return s
}
