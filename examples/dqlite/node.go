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
//	GET  /bench?n=N&batch=M -> the write cost (bench below): the same inserts
//	                           through the cluster and into a local WAL file
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
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/canonical/go-dqlite/app"
	_ "github.com/mattn/go-sqlite3"
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
	http.HandleFunc("/bench", func(w http.ResponseWriter, r *http.Request) {
		n, err1 := strconv.Atoi(r.URL.Query().Get("n"))
		batch, err2 := strconv.Atoi(r.URL.Query().Get("batch"))
		if err1 != nil || err2 != nil || n < 1 || batch < 1 {
			fmt.Fprintln(w, "error: /bench needs n and batch, positive integers")
			return
		}
		out, err := benchBoth(db, filepath.Join(*dir, "local.db"), n, batch)
		if err != nil {
			fmt.Fprintf(w, "error: %s\n", err)
			return
		}
		fmt.Fprint(w, out)
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

// The write cost: the same statements through the cluster (every commit is
// a Raft entry the leader sends to the other voters and waits for a quorum
// of) and into a local SQLite file in WAL mode (benchLocal), through the
// same database/sql code (mattn's
// go-sqlite3 on the system libsqlite3, which has the extension through the
// same sqlite3_auto_extension). Each side creates a fresh inverted_index,
// takes n single-row INSERTs in autocommit, then batch INSERTs in one
// transaction, and must then hold n + batch rows and pass the index's
// integrity check.
const benchInsert = "INSERT INTO wcost(rowid, category, city) VALUES (?, ?, ?)"

var benchCategories = []string{"Men", "Women", "Kids", `["Men", "Kids"]`}
var benchCities = []string{"Boston", "Paris", "Lima", "Oslo", "Kyoto"}

// benchRun writes through db and returns the two rates in writes per second.
func benchRun(db *sql.DB, n, batch int) (auto, tx float64, err error) {
	if _, err = db.Exec("DROP TABLE IF EXISTS wcost"); err != nil {
		return
	}
	if _, err = db.Exec("CREATE VIRTUAL TABLE wcost USING inverted_index(category, city)"); err != nil {
		return
	}
	row := func(i int) []interface{} {
		return []interface{}{i, benchCategories[i%len(benchCategories)], benchCities[i%len(benchCities)]}
	}
	t := time.Now()
	for i := 1; i <= n; i++ {
		if _, err = db.Exec(benchInsert, row(i)...); err != nil {
			return
		}
	}
	auto = float64(n) / time.Since(t).Seconds()
	t = time.Now()
	txn, err := db.Begin()
	if err != nil {
		return
	}
	for i := n + 1; i <= n+batch; i++ {
		if _, err = txn.Exec(benchInsert, row(i)...); err != nil {
			txn.Rollback()
			return
		}
	}
	if err = txn.Commit(); err != nil {
		return
	}
	tx = float64(batch) / time.Since(t).Seconds()
	var count int
	if err = db.QueryRow("SELECT count(*) FROM wcost").Scan(&count); err != nil {
		return
	}
	if count != n+batch {
		err = fmt.Errorf("wcost holds %d rows, not %d", count, n+batch)
		return
	}
	_, err = db.Exec("INSERT INTO wcost(wcost) VALUES ('integrity-check')")
	return
}

// benchLocal measures a fresh local WAL file at one synchronous setting.
func benchLocal(path, sync string, n, batch int) (auto, tx float64, err error) {
	os.Remove(path)
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	local, err := sql.Open("sqlite3", path)
	if err != nil {
		return
	}
	defer local.Close()
	local.SetMaxOpenConns(1)
	var mode string
	if err = local.QueryRow("PRAGMA journal_mode = WAL").Scan(&mode); err != nil || mode != "wal" {
		err = fmt.Errorf("journal_mode %q (%v)", mode, err)
		return
	}
	if _, err = local.Exec("PRAGMA synchronous = " + sync); err != nil {
		return
	}
	return benchRun(local, n, batch)
}

// benchBoth measures the cluster, then the local WAL file with
// synchronous = NORMAL (no fsync at commit: a power cut may lose the last
// commits) and FULL (fsync at every commit, as durable as a commit the
// cluster acknowledged), and renders one line per kind of write.
func benchBoth(cluster *sql.DB, path string, n, batch int) (string, error) {
	cAuto, cTx, err := benchRun(cluster, n, batch)
	if err != nil {
		return "", fmt.Errorf("cluster: %w", err)
	}
	nAuto, nTx, err := benchLocal(path, "NORMAL", n, batch)
	if err != nil {
		return "", fmt.Errorf("local: %w", err)
	}
	fAuto, fTx, err := benchLocal(path, "FULL", n, batch)
	if err != nil {
		return "", fmt.Errorf("local: %w", err)
	}
	var b strings.Builder
	line := func(what string, c, normal, full float64) {
		fmt.Fprintf(&b, "%s: cluster %.0f writes/s; local WAL synchronous=NORMAL %.0f (%.1fx), FULL %.0f (%.1fx)\n",
			what, c, normal, normal/c, full, full/c)
	}
	line(fmt.Sprintf("autocommit, %d single-row INSERTs", n), cAuto, nAuto, fAuto)
	line(fmt.Sprintf("one transaction of %d INSERTs", batch), cTx, nTx, fTx)
	return b.String(), nil
}
