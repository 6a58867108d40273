// node.go: one dqlite node with the nosql extension registered.
//
// dqlite cannot load_extension, so the node links the static library
// (make static: dist/libnosql.a) and registers sqlite3_nosql_init with
// sqlite3_auto_extension before dqlite opens any connection: every
// connection the node opens, as leader or follower, has the extension.
//
//	nosql-dqlite-node -dir DIR -db 127.0.0.1:9001 -api 127.0.0.1:8001 [-join 127.0.0.1:9001,...]
//
// The API is two HTTP endpoints, each taking one SQL statement as the
// request body and going through the cluster's leader:
//
//	POST /exec   -> "ok" or "error: ..."
//	POST /query  -> the rows, columns joined by '|', one row per line
//	GET  /leader -> the leader's database address
//	GET  /cluster -> one line per node: address and role (voter, standby, spare)
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../dist
#cgo LDFLAGS: ${SRCDIR}/../../dist/libnosql.a -lsqlite3 -lroaring -lpcre2-8 -lm
#include <sqlite3.h>
#include "nosql.h"

static int registerNosql(void) {
  return sqlite3_auto_extension((void (*)(void))sqlite3_nosql_init);
}
*/
import "C"

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/canonical/go-dqlite/app"
)

func main() {
	dir := flag.String("dir", "", "data directory")
	dbAddr := flag.String("db", "", "address for replication, e.g. 127.0.0.1:9001")
	api := flag.String("api", "", "address of the HTTP API, e.g. 127.0.0.1:8001")
	join := flag.String("join", "", "comma-separated database addresses of existing nodes")
	flag.Parse()
	if *dir == "" || *dbAddr == "" || *api == "" {
		flag.Usage()
		os.Exit(2)
	}
	if rc := C.registerNosql(); rc != C.SQLITE_OK {
		log.Fatalf("sqlite3_auto_extension: %d", rc)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	opts := []app.Option{app.WithAddress(*dbAddr)}
	if *join != "" {
		opts = append(opts, app.WithCluster(strings.Split(*join, ",")))
	}
	node, err := app.New(*dir, opts...)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := node.Ready(ctx); err != nil {
		log.Fatal(err)
	}
	db, err := node.Open(context.Background(), "nosql")
	if err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("/exec", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if _, err := db.Exec(string(body)); err != nil {
			fmt.Fprintf(w, "error: %s\n", err)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	http.HandleFunc("/query", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		out, err := query(db, string(body))
		if err != nil {
			fmt.Fprintf(w, "error: %s\n", err)
			return
		}
		fmt.Fprint(w, out)
	})
	http.HandleFunc("/leader", func(w http.ResponseWriter, r *http.Request) {
		cli, err := node.Leader(r.Context())
		if err != nil {
			fmt.Fprintf(w, "error: %s\n", err)
			return
		}
		defer cli.Close()
		info, err := cli.Leader(r.Context())
		if err != nil || info == nil {
			fmt.Fprintf(w, "error: no leader (%v)\n", err)
			return
		}
		fmt.Fprintln(w, info.Address)
	})
	http.HandleFunc("/cluster", func(w http.ResponseWriter, r *http.Request) {
		cli, err := node.Leader(r.Context())
		if err != nil {
			fmt.Fprintf(w, "error: %s\n", err)
			return
		}
		defer cli.Close()
		nodes, err := cli.Cluster(r.Context())
		if err != nil {
			fmt.Fprintf(w, "error: %s\n", err)
			return
		}
		for _, n := range nodes {
			fmt.Fprintf(w, "%s %s\n", n.Address, n.Role)
		}
	})
	listener, err := net.Listen("tcp", *api)
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(listener, nil)
	log.Printf("node %s ready, API on %s", *dbAddr, *api)

	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	<-ch
	listener.Close()
	db.Close()
	node.Handover(context.Background())
	node.Close()
}

// query runs one statement and renders its rows.
func query(db *sql.DB, q string) (string, error) {
	rows, err := db.Query(q)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	vals := make([]interface{}, len(cols))
	ptrs := make([]interface{}, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('|')
			}
			switch x := v.(type) {
			case nil:
				b.WriteString("NULL")
			case []byte:
				b.WriteString(string(x))
			default:
				fmt.Fprint(&b, x)
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}
