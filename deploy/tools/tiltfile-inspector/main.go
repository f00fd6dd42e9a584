// Command tiltfile-inspector runs a Tiltfile through the real Starlark interpreter (go.starlark.net, the
// implementation Tilt itself embeds, with the dialect options Tilt enables) against recording stand-ins for
// Tilt's built-ins, and prints every call it made as JSON. The deploy tests read that JSON to check what the
// Tiltfile would ask Tilt to build, deploy and forward, without Tilt, Docker or a cluster.
//
// What is real: parsing, name resolution (a misspelt or unknown built-in is an error, as in Tilt), control
// flow, and the data the Tiltfile computes. kustomize() returns the manifests that the caller rendered with the
// real kustomize (passed with -kustomize path=rendered.json), so a Tiltfile that decodes and edits them runs its
// edits on the real objects. Nothing is built, applied or run: local() is recorded, not executed.
//
// Usage: tiltfile-inspector -tiltfile Tiltfile [-kustomize deploy/k8s/overlays/dev=/tmp/dev.json ...]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	starlarkjson "go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// recordedCall is what a stand-in returns, so values such as sync(...) inside live_update lists keep their
// arguments and show up in the JSON where the Tiltfile put them.
type recordedCall struct {
	function string
	args     starlark.Tuple
	kwargs   []starlark.Tuple
	position string
}

func (c *recordedCall) String() string        { return c.function + "(...)" }
func (c *recordedCall) Type() string          { return c.function }
func (c *recordedCall) Freeze()               {}
func (c *recordedCall) Truth() starlark.Bool  { return starlark.True }
func (c *recordedCall) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: %s", c.function) }

// blob stands in for Tilt's Blob: YAML text whose objects are known (rendered by the real kustomize, or
// produced by encode_yaml_stream from objects the Tiltfile built or edited).
type blob struct {
	source  string
	objects *starlark.List
}

func (b *blob) String() string        { return "<blob from " + b.source + ">" }
func (b *blob) Type() string          { return "blob" }
func (b *blob) Freeze()               {}
func (b *blob) Truth() starlark.Bool  { return starlark.True }
func (b *blob) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: blob") }

type inspector struct {
	tiltfileDirectory string
	rendered          map[string]string // kustomize path → JSON array of the objects it renders
	calls             []*recordedCall
}

// Tilt's top-level built-ins (https://docs.tilt.dev/api.html). Any of them is accepted and recorded; a name not
// in this list is an undefined name, which Tilt would reject too.
var recordedBuiltins = []string{
	"allow_k8s_contexts", "analytics_settings", "ci_settings", "custom_build", "default_registry", "dc_resource",
	"docker_build", "docker_compose", "docker_prune_settings", "enable_feature", "fall_back_on", "helm",
	"include", "initial_sync", "k8s_custom_deploy", "k8s_kind", "k8s_resource", "k8s_yaml", "link", "local",
	"local_resource", "port_forward", "restart_container", "run", "secret_settings", "set_team", "sync",
	"update_settings", "version_settings", "warn", "watch_file", "watch_settings",
	"workload_to_resource_function",
}

func (inspector *inspector) record(name string) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, builtin *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		call := &recordedCall{function: name, args: args, kwargs: kwargs, position: thread.CallFrame(1).Pos.String()}
		inspector.calls = append(inspector.calls, call)
		return call, nil
	})
}

func (inspector *inspector) kustomize(thread *starlark.Thread, builtin *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	var kustomizeBinary, flags starlark.Value
	if err := starlark.UnpackArgs(builtin.Name(), args, kwargs, "paths", &path, "kustomize_bin?", &kustomizeBinary, "flags?", &flags); err != nil {
		return nil, err
	}
	inspector.calls = append(inspector.calls, &recordedCall{function: "kustomize", args: args, kwargs: kwargs, position: thread.CallFrame(1).Pos.String()})
	rendered, known := inspector.rendered[filepath.Clean(path)]
	if !known {
		return &blob{source: "kustomize " + path}, nil
	}
	objects, err := decodeJSON(thread, rendered)
	if err != nil {
		return nil, fmt.Errorf("rendered manifests of %s: %w", path, err)
	}
	return &blob{source: "kustomize " + path, objects: objects}, nil
}

func (inspector *inspector) decodeYAMLStream(thread *starlark.Thread, builtin *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var value starlark.Value
	if err := starlark.UnpackPositionalArgs(builtin.Name(), args, kwargs, 1, &value); err != nil {
		return nil, err
	}
	source, ok := value.(*blob)
	if !ok {
		return nil, fmt.Errorf("decode_yaml_stream: the inspector can only decode what kustomize() or encode_yaml_stream() returned, got %s", value.Type())
	}
	if source.objects == nil {
		return nil, fmt.Errorf("decode_yaml_stream: no rendered manifests were given for %s (pass -kustomize path=rendered.json)", source.source)
	}
	// A fresh copy each time, as decoding real YAML twice would give.
	text, err := encodeJSON(thread, source.objects)
	if err != nil {
		return nil, err
	}
	return decodeJSON(thread, text)
}

func (inspector *inspector) encodeYAMLStream(thread *starlark.Thread, builtin *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var objects *starlark.List
	if err := starlark.UnpackPositionalArgs(builtin.Name(), args, kwargs, 1, &objects); err != nil {
		return nil, err
	}
	return &blob{source: "encode_yaml_stream", objects: objects}, nil
}

func (inspector *inspector) fail(thread *starlark.Thread, builtin *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	parts := make([]string, 0, len(args))
	for _, argument := range args {
		if text, ok := starlark.AsString(argument); ok {
			parts = append(parts, text)
		} else {
			parts = append(parts, argument.String())
		}
	}
	return nil, fmt.Errorf("fail: %s", strings.Join(parts, " "))
}

func (inspector *inspector) osModule() *starlarkstruct.Module {
	resolve := func(path string) string {
		if filepath.IsAbs(path) {
			return path
		}
		return filepath.Join(inspector.tiltfileDirectory, path)
	}
	exists := starlark.NewBuiltin("os.path.exists", func(thread *starlark.Thread, builtin *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var path string
		if err := starlark.UnpackPositionalArgs(builtin.Name(), args, kwargs, 1, &path); err != nil {
			return nil, err
		}
		_, err := os.Stat(resolve(path))
		return starlark.Bool(err == nil), nil
	})
	join := starlark.NewBuiltin("os.path.join", func(thread *starlark.Thread, builtin *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		parts := make([]string, 0, len(args))
		for _, argument := range args {
			text, ok := starlark.AsString(argument)
			if !ok {
				return nil, fmt.Errorf("os.path.join: want strings, got %s", argument.Type())
			}
			parts = append(parts, text)
		}
		return starlark.String(filepath.Join(parts...)), nil
	})
	getenv := starlark.NewBuiltin("os.getenv", func(thread *starlark.Thread, builtin *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var name string
		var fallback starlark.Value = starlark.None
		if err := starlark.UnpackArgs(builtin.Name(), args, kwargs, "key", &name, "default?", &fallback); err != nil {
			return nil, err
		}
		// The inspection must not depend on the caller's environment: every variable reads as unset.
		return fallback, nil
	})
	return &starlarkstruct.Module{Name: "os", Members: starlark.StringDict{
		"getenv": getenv,
		"path":   &starlarkstruct.Module{Name: "os.path", Members: starlark.StringDict{"exists": exists, "join": join}},
	}}
}

func jsonModule() *starlarkstruct.Module { return starlarkjson.Module }

func decodeJSON(thread *starlark.Thread, text string) (*starlark.List, error) {
	decode := jsonModule().Members["decode"]
	value, err := starlark.Call(thread, decode, starlark.Tuple{starlark.String(text)}, nil)
	if err != nil {
		return nil, err
	}
	list, ok := value.(*starlark.List)
	if !ok {
		return nil, fmt.Errorf("want a JSON array of objects, got %s", value.Type())
	}
	return list, nil
}

func encodeJSON(thread *starlark.Thread, value starlark.Value) (string, error) {
	encode := jsonModule().Members["encode"]
	encoded, err := starlark.Call(thread, encode, starlark.Tuple{value}, nil)
	if err != nil {
		return "", err
	}
	return string(encoded.(starlark.String)), nil
}

// toJSON turns Starlark values into plain data for the report.
func toJSON(value starlark.Value) any {
	switch typed := value.(type) {
	case starlark.NoneType:
		return nil
	case starlark.Bool:
		return bool(typed)
	case starlark.Int:
		if small, ok := typed.Int64(); ok {
			return small
		}
		return typed.String()
	case starlark.Float:
		return float64(typed)
	case starlark.String:
		return string(typed)
	case *starlark.List:
		items := make([]any, 0, typed.Len())
		for index := 0; index < typed.Len(); index++ {
			items = append(items, toJSON(typed.Index(index)))
		}
		return items
	case starlark.Tuple:
		items := make([]any, 0, len(typed))
		for _, item := range typed {
			items = append(items, toJSON(item))
		}
		return items
	case *starlark.Dict:
		object := map[string]any{}
		for _, item := range typed.Items() {
			key, ok := starlark.AsString(item[0])
			if !ok {
				key = item[0].String()
			}
			object[key] = toJSON(item[1])
		}
		return object
	case *recordedCall:
		return callToJSON(typed)
	case *blob:
		object := map[string]any{"blob": typed.source}
		if typed.objects != nil {
			object["objects"] = toJSON(typed.objects)
		}
		return object
	case starlark.Callable:
		return map[string]any{"callable": typed.Name()}
	default:
		return value.String()
	}
}

func callToJSON(call *recordedCall) map[string]any {
	args := make([]any, 0, len(call.args))
	for _, argument := range call.args {
		args = append(args, toJSON(argument))
	}
	kwargs := map[string]any{}
	for _, pair := range call.kwargs {
		kwargs[string(pair[0].(starlark.String))] = toJSON(pair[1])
	}
	return map[string]any{"function": call.function, "args": args, "kwargs": kwargs, "position": call.position}
}

type kustomizeFlag map[string]string

func (flagValue kustomizeFlag) String() string { return fmt.Sprint(map[string]string(flagValue)) }
func (flagValue kustomizeFlag) Set(value string) error {
	path, file, found := strings.Cut(value, "=")
	if !found {
		return fmt.Errorf("want path=rendered.json, got %q", value)
	}
	content, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	flagValue[filepath.Clean(path)] = string(content)
	return nil
}

func main() {
	tiltfile := flag.String("tiltfile", "Tiltfile", "the Tiltfile to inspect")
	rendered := kustomizeFlag{}
	flag.Var(rendered, "kustomize", "path=rendered.json: what kustomize(path) renders, as a JSON array (repeatable)")
	flag.Parse()

	source, err := os.ReadFile(*tiltfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	directory, _ := filepath.Abs(filepath.Dir(*tiltfile))
	inspector := &inspector{tiltfileDirectory: directory, rendered: rendered}

	predeclared := starlark.StringDict{
		"kustomize":           starlark.NewBuiltin("kustomize", inspector.kustomize),
		"decode_yaml_stream":  starlark.NewBuiltin("decode_yaml_stream", inspector.decodeYAMLStream),
		"encode_yaml_stream":  starlark.NewBuiltin("encode_yaml_stream", inspector.encodeYAMLStream),
		"fail":                starlark.NewBuiltin("fail", inspector.fail),
		"os":                  inspector.osModule(),
		"TRIGGER_MODE_AUTO":   starlark.MakeInt(0),
		"TRIGGER_MODE_MANUAL": starlark.MakeInt(1),
	}
	for _, name := range recordedBuiltins {
		predeclared[name] = inspector.record(name)
	}

	var printed []string
	thread := &starlark.Thread{
		Name:  "tiltfile",
		Print: func(_ *starlark.Thread, message string) { printed = append(printed, message) },
		Load: func(_ *starlark.Thread, module string) (starlark.StringDict, error) {
			// Extensions (ext://…) are fetched by Tilt from the network; the Tiltfile is meant not to need any.
			return nil, fmt.Errorf("load(%q): the Tiltfile should not depend on extensions or other files", module)
		},
	}
	// The dialect options Tilt enables for Tiltfiles.
	options := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}
	if _, err := starlark.ExecFileOptions(options, thread, *tiltfile, source, predeclared); err != nil {
		if evalError, ok := err.(*starlark.EvalError); ok {
			fmt.Fprintln(os.Stderr, evalError.Backtrace())
		} else {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(1)
	}

	calls := make([]map[string]any, 0, len(inspector.calls))
	for _, call := range inspector.calls {
		calls = append(calls, callToJSON(call))
	}
	knownPaths := make([]string, 0, len(rendered))
	for path := range rendered {
		knownPaths = append(knownPaths, path)
	}
	sort.Strings(knownPaths)
	report := map[string]any{"calls": calls, "printed": printed, "renderedPaths": knownPaths}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(report); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
