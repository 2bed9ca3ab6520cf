package check

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEtcdNotesAcrossReleases: testdata/notes-etcd-v3.6.0.md, written for
// etcd v3.6.0 with every form of citation, checked at v3.6.0 on their own
// evidence and at v3.7.3 from v3.6.0. The positions were read in the two
// releases' source (git show v3.6.0:server/... and v3.7.3, grep -n), not
// taken from the checker.
func TestEtcdNotesAcrossReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("reads real etcd releases")
	}
	ctx := context.Background()
	notes := notesFile(t, "notes-etcd-v3.6.0.md")
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"at v3.6.0", Options{Version: "v3.6.0"}, []string{
			"3 server/storage/mvcc/kvstore_txn.go:80 ok",
			"3 …/kvstore_txn.go:77 ok", // in rangeKeys (72-…)
			"7 server/storage/mvcc/kvstore.go:37 ok",
			"8 server/storage/mvcc/kvstore.go:177 ok",
			"9 server/storage/mvcc/kvstore.go:203 ok",
			"14 server/storage/mvcc/kvstore_txn.go:81 ok",
			"16 server/storage/mvcc/watcher_group.go:251 ok",
			"17 server/storage/mvcc/watchable_store.go:135 ok",
			"19 kvstore.go:203 ok",
			"20 server/storage/mvcc/watchable_store.go:222 ok",
			"21 server/etcdserver/txn/txn.go:176 ok",
			"22 server/etcdserver/apply/apply_auth.go:59 ok",
			"23 server/etcdserver/server.go:1975 ok",
			"24 kvstore.go:177 unanchored",
			"28 server/storage/mvcc/watcher_group.go:251 ok",
			"29 watcher_group.go:237 ok",
			"31 `mvcc.(*watcherGroup).chooseAll` ok server/storage/mvcc/watcher_group.go:237",
			"31 `mvcc.ErrCompacted` ok server/storage/mvcc/kvstore.go:37",
			"31 `rpctypes.ErrGRPCCompacted` ok api/v3rpc/rpctypes/error.go:32",
			"31 `mvcc.store.compactMainRev` ok server/storage/mvcc/kvstore.go:73",
			"31 `mvcc.(*store).hashByRev` ok server/storage/mvcc/kvstore.go:166",
			"33 https://github.com/etcd-io/etcd/blob/v3.6.0/server/storage/mvcc/kvstore.go#L177 ok",
			"35 server/storage/mvcc/kvstore.go:177 drifted 203",
		}},
		{"at v3.7.3 from v3.6.0", Options{Version: "v3.7.3", From: "v3.6.0"}, []string{
			"3 server/storage/mvcc/kvstore_txn.go:80 drifted 81",
			"3 …/kvstore_txn.go:77 drifted 78",
			"7 server/storage/mvcc/kvstore.go:37 drifted 38",
			"8 server/storage/mvcc/kvstore.go:177 drifted 188",
			"9 server/storage/mvcc/kvstore.go:203 drifted 214",
			"14 server/storage/mvcc/kvstore_txn.go:81 drifted 82",
			"16 server/storage/mvcc/watcher_group.go:251 drifted 255",
			"17 server/storage/mvcc/watchable_store.go:135 drifted 141",
			"19 kvstore.go:203 drifted 214",
			"20 server/storage/mvcc/watchable_store.go:222 mismatch at 227",                              // now NewTicker(watchResyncPeriod), not the quoted NewTicker(waitDuration)
			"21 server/etcdserver/txn/txn.go:176 moved server/etcdserver/txn/range.go:71",                // Range has its own file
			"22 server/etcdserver/apply/apply_auth.go:59 mismatch at server/etcdserver/apply/auth.go:59", // Apply(r, shouldApplyV3, applyFunc) now
			"23 server/etcdserver/server.go:1975 mismatch",                                               // applyEntryNormal calls apply.Apply now
			"24 kvstore.go:177 drifted 188",
			"28 server/storage/mvcc/watcher_group.go:251 drifted 255",
			"29 watcher_group.go:237 drifted 241",
			"31 `mvcc.(*watcherGroup).chooseAll` ok server/storage/mvcc/watcher_group.go:241",
			"31 `mvcc.ErrCompacted` ok server/storage/mvcc/kvstore.go:38",
			"31 `rpctypes.ErrGRPCCompacted` ok api/v3rpc/rpctypes/error.go:32",
			"31 `mvcc.store.compactMainRev` ok server/storage/mvcc/kvstore.go:74",
			"31 `mvcc.(*store).hashByRev` ok server/storage/mvcc/kvstore.go:177",
			"33 https://github.com/etcd-io/etcd/blob/v3.6.0/server/storage/mvcc/kvstore.go#L177 ok", // at its tag
			"35 server/storage/mvcc/kvstore.go:177 drifted 214",                                     // it meant 203
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Files = []string{notes}
			rep, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summaries(rep)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// With --to v3.7.3 the permalink is carried too.
	rep, err := Run(ctx, Options{To: "v3.7.3", From: "v3.6.0", Files: []string{notes}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Citations {
		if c.Form == "github" && summary(c) != "33 https://github.com/etcd-io/etcd/blob/v3.6.0/server/storage/mvcc/kvstore.go#L177 drifted 188" {
			t.Errorf("--to v3.7.3: %s", summary(c))
		}
	}
}
