package errcompacted

import (
	"github.com/srctrace/srctrace/trace/layers"
	"github.com/srctrace/srctrace/trace/target"
)

// Kubernetes is what the study asks of the Kubernetes code that consumes
// etcd's watch, to check the exercise's last claim: that the Kubernetes
// translation of a compacted watch is a relist, not a warning. The layers
// are the API server's etcd3 storage, its watch cache, and client-go's
// Reflector; every question names Go objects, and the answers (positions,
// texts, values) come from the loaded release.
var Kubernetes = &layers.Spec{
	Consumer: target.Kubernetes,
	Producer: target.Etcd,
	Requires: []string{"go.etcd.io/etcd/client/v3", "go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/api/v3"},
	Layers: []layers.Layer{
		{Name: layerStorage, Packages: []string{"k8s.io/apiserver/pkg/storage/etcd3"}},
		{Name: layerCache, Packages: []string{"k8s.io/apiserver/pkg/storage/cacher"}},
		{Name: layerClient, Packages: []string{"k8s.io/client-go/tools/cache"}},
		{Name: layerEtcd, Packages: []string{"go.etcd.io/etcd/client/v3"}, Syntax: true},
	},
	Bodies:    []string{"k8s.io/apimachinery/pkg/api/errors"},
	Load:      []string{"go.etcd.io/etcd/api/v3/v3rpc/rpctypes", "k8s.io/client-go/features"},
	Sentinel:  "go.etcd.io/etcd/api/v3/v3rpc/rpctypes.ErrCompacted",
	Status:    "k8s.io/apimachinery/pkg/apis/meta/v1.Status",
	Event:     "k8s.io/apimachinery/pkg/watch.Event",
	EventKind: "Type",
	Logs: []layers.Log{
		{Func: "k8s.io/klog/v2.Error", Level: "error"},
		{Func: "k8s.io/klog/v2.Errorf", Level: "error"},
		{Func: "k8s.io/klog/v2.ErrorS", Level: "error"},
		{Func: "k8s.io/klog/v2.Warning", Level: "warning"},
		{Func: "k8s.io/klog/v2.Warningf", Level: "warning"},
		{Func: "k8s.io/klog/v2.Info", Level: "info"},
		{Func: "k8s.io/klog/v2.Infof", Level: "info"},
		{Func: "k8s.io/klog/v2.InfoS", Level: "info"},
		{Func: "k8s.io/klog/v2.Verbose.Info", Level: "info"},
		{Func: "k8s.io/klog/v2.Verbose.Infof", Level: "info"},
		{Func: "k8s.io/klog/v2.Verbose.InfoS", Level: "info"},
		{Func: "github.com/go-logr/logr.Logger.Info", Level: "info"},
		{Func: "github.com/go-logr/logr.Logger.Error", Level: "error"},
		{Func: "k8s.io/apimachinery/pkg/util/runtime.HandleError", Level: "error"},
		{Func: "k8s.io/apimachinery/pkg/util/runtime.HandleErrorWithContext", Level: "error"},
	},
	Verbosity: []string{"k8s.io/klog/v2.V", "github.com/go-logr/logr.Logger.V"},
	Text:      []string{"strings.Contains", "strings.HasPrefix", "strings.HasSuffix", "strings.EqualFold"},

	Questions: []layers.Question{
		// etcd's client: when its watch response's error is the sentinel.
		{Role: roleCarrier, Layer: layerEtcd, Ask: layers.Returns,
			Func: "go.etcd.io/etcd/client/v3.(*WatchResponse).Err", Object: "go.etcd.io/etcd/api/v3/v3rpc/rpctypes.ErrCompacted"},
		// The API server's storage: from the watch response's error on.
		{Role: roleStorage, Layer: layerStorage, Ask: layers.Follow, From: "go.etcd.io/etcd/client/v3.(*WatchResponse).Err"},
		// The watch cache: its own "too old" (the constructor the storage
		// turned the compaction into), and what its own etcd watch
		// ending does to every watcher.
		{Role: roleCacheTooOld, Layer: layerCache, Ask: layers.Follow, FromRole: roleStorage},
		{Role: roleCacheLoop, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.(*Cacher).startCaching",
			Calls: []string{"k8s.io/apiserver/pkg/storage/cacher.(*Cacher).terminateAllWatchers", "k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch"}},
		{Role: roleCacheRestart, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.NewCacherFromConfig",
			Calls: []string{"k8s.io/apimachinery/pkg/util/wait.Until", "k8s.io/client-go/tools/cache.NewNamedReflector", "k8s.io/apiserver/pkg/storage/cacher.NewListerWatcher"}},
		{Role: roleCacheTerminateAll, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.(*Cacher).terminateAllWatchers",
			Calls: []string{"k8s.io/apiserver/pkg/storage/cacher.(*indexedWatchers).terminateAll"}},
		{Role: roleCacheStopWatcher, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.(*Cacher).stopWatcherLocked",
			Calls: []string{"k8s.io/apiserver/pkg/storage/cacher.(*cacheWatcher).stopLocked"}},
		{Role: roleCacheTerminate, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.(*indexedWatchers).terminateAll",
			Calls: []string{"k8s.io/klog/v2.Warningf"}},
		{Role: roleCacheStop, Layer: layerCache, Ask: layers.Calls,
			Func: "k8s.io/apiserver/pkg/storage/cacher.(*cacheWatcher).stopLocked", Calls: []string{"close"}},
		{Role: roleCacheUnready, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.(*Cacher).startCaching",
			Calls: []string{"k8s.io/apiserver/pkg/storage/cacher.(*ready).setError"}},
		{Role: roleCacheBusy, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.(*Cacher).Watch",
			Calls: []string{"k8s.io/apimachinery/pkg/api/errors.NewTooManyRequests"}},
		// Who serves a client's read when the resource has a watch cache.
		{Role: roleCacheWatch, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.(*CacheDelegator).Watch",
			Calls: []string{"k8s.io/apiserver/pkg/storage/cacher.(*Cacher).Watch", "k8s.io/apiserver/pkg/storage.Interface.Watch"}},
		{Role: roleCacheList, Layer: layerCache, Ask: layers.Calls,
			Func:  "k8s.io/apiserver/pkg/storage/cacher.(*CacheDelegator).GetList",
			Calls: []string{"k8s.io/apiserver/pkg/storage/cacher.(*Cacher).GetList", "k8s.io/apiserver/pkg/storage.Interface.GetList"}},
		// client-go's Reflector: from the event of kind Error on.
		{Role: roleClient, Layer: layerClient, Ask: layers.Follow, FromRole: roleStorage},
		{Role: roleClientMark, Layer: layerClient, Ask: layers.Calls,
			Func:  "k8s.io/client-go/tools/cache.(*Reflector).watch",
			Calls: []string{"k8s.io/client-go/tools/cache.(*Reflector).setIsLastSyncResourceVersionUnavailable"}},
		{Role: roleClientRewatch, Layer: layerClient, Ask: layers.Composite,
			Func: "k8s.io/client-go/tools/cache.(*Reflector).watch", Object: "k8s.io/apimachinery/pkg/apis/meta/v1.ListOptions"},
		{Role: roleClientRetry, Layer: layerClient, Ask: layers.Calls,
			Func: "k8s.io/client-go/tools/cache.(*Reflector).watch", Calls: []string{"k8s.io/client-go/tools/cache.isWatchErrorRetriable"}},
		{Role: roleClientLoop, Layer: layerClient, Ask: layers.Calls,
			Func:  "k8s.io/client-go/tools/cache.(*Reflector).RunWithContext",
			Calls: []string{"k8s.io/apimachinery/pkg/util/wait.DelayFunc.Until", "k8s.io/client-go/tools/cache.(*Reflector).ListAndWatchWithContext"}},
		{Role: roleClientBackoff, Layer: layerClient, Ask: layers.Composite,
			Func: "k8s.io/client-go/tools/cache.NewReflectorWithOptions", Object: "k8s.io/apimachinery/pkg/util/wait.Backoff"},
		{Role: roleClientDelay, Layer: layerClient, Ask: layers.Writes, Object: "k8s.io/client-go/tools/cache.Reflector.delayHandler"},
		{Role: roleClientRead, Layer: layerClient, Ask: layers.Calls,
			Func:  "k8s.io/client-go/tools/cache.(*Reflector).ListAndWatchWithContext",
			Calls: []string{"k8s.io/client-go/tools/cache.(*Reflector).watchList", "k8s.io/client-go/tools/cache.(*Reflector).list", "k8s.io/client-go/tools/cache.(*Reflector).watchWithResync"}},
		{Role: roleClientWatchListOpts, Layer: layerClient, Ask: layers.Composite,
			Func: "k8s.io/client-go/tools/cache.(*Reflector).watchList", Object: "k8s.io/apimachinery/pkg/apis/meta/v1.ListOptions"},
		{Role: roleClientUseWatchList, Layer: layerClient, Ask: layers.Writes, Object: "k8s.io/client-go/tools/cache.Reflector.useWatchList"},
		{Role: roleClientGate, Layer: layerClient, Ask: layers.Table,
			Object: "k8s.io/client-go/features.defaultVersionedKubernetesFeatureGates", Key: "k8s.io/client-go/features.WatchListClient", Field: "Default"},
		{Role: roleClientListRV, Layer: layerClient, Ask: layers.Values, Func: "k8s.io/client-go/tools/cache.(*Reflector).relistResourceVersion"},
		{Role: roleClientWatchListRV, Layer: layerClient, Ask: layers.Values, Func: "k8s.io/client-go/tools/cache.(*Reflector).rewatchResourceVersion"},
	},

	Lab:    kubeLab,
	Decide: decideKubernetes,
}

// The layers, and the roles of the questions' answers.
const (
	layerEtcd    = "etcd client"
	layerStorage = "apiserver storage"
	layerCache   = "watch cache"
	layerClient  = "client-go"

	roleCarrier             = "carrier"
	roleStorage             = "storage"
	roleCacheTooOld         = "cache-too-old"
	roleCacheLoop           = "cache-loop"
	roleCacheRestart        = "cache-restart"
	roleCacheTerminate      = "cache-terminate"
	roleCacheTerminateAll   = "cache-terminate-all"
	roleCacheStopWatcher    = "cache-stop-watcher"
	roleClientRewatch       = "client-rewatch"
	roleClientRetry         = "client-retry"
	roleCacheStop           = "cache-stop"
	roleCacheUnready        = "cache-unready"
	roleCacheBusy           = "cache-busy"
	roleCacheWatch          = "cache-watch"
	roleCacheList           = "cache-list"
	roleClient              = "client"
	roleClientMark          = "client-mark"
	roleClientLoop          = "client-loop"
	roleClientBackoff       = "client-backoff"
	roleClientDelay         = "client-delay"
	roleClientRead          = "client-read"
	roleClientUseWatchList  = "client-use-watch-list"
	roleClientWatchListOpts = "client-watch-list-options"
	roleClientGate          = "client-gate"
	roleClientListRV        = "client-list-rv"
	roleClientWatchListRV   = "client-watch-list-rv"
)
