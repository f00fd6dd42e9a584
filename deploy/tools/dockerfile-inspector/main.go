// Command dockerfile-inspector reads a Dockerfile with BuildKit's own frontend code (the parser, the
// instruction parser, and the converter that `docker build --check` runs), without a Docker engine and
// without the network, and prints what it found as JSON for the deploy tests:
//
//   - every stage with its base and its instructions, as BuildKit understands them (exec or shell form,
//     COPY sources and flags, ENV and ARG values, EXPOSE ports, HEALTHCHECK test, …);
//   - for each requested build argument SERVICE and target stage, the result of BuildKit's checks: the lint
//     warnings (rule name and detail) and any error that would stop a build (an unknown stage, an invalid base
//     image name, a malformed instruction).
//
// Base images are not fetched: an offline resolver answers lookups of the images named with -image (a minimal
// Linux config) and refuses any other, as a registry would refuse an image that does not exist. So a SERVICE
// value without a stage of its own (FROM service-${SERVICE} then names an image) fails here as it would in a
// real build.
//
// Usage: dockerfile-inspector -dockerfile deploy/docker/Dockerfile -image node:24-bookworm-slim
//
//	[-service gateway …] [-target runtime …]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/distribution/reference"
	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerui"
	digest "github.com/opencontainers/go-digest"
)

type command struct {
	Instruction string             `json:"instruction"`
	Text        string             `json:"text"`
	CommandLine []string           `json:"commandLine,omitempty"`
	ShellForm   *bool              `json:"shellForm,omitempty"`
	Sources     []string           `json:"sources,omitempty"`
	Destination string             `json:"destination,omitempty"`
	From        string             `json:"from,omitempty"`
	Parents     bool               `json:"parents,omitempty"`
	Environment map[string]string  `json:"environment,omitempty"`
	Arguments   map[string]*string `json:"arguments,omitempty"`
	Ports       []string           `json:"ports,omitempty"`
	User        string             `json:"user,omitempty"`
	Path        string             `json:"path,omitempty"`
	Signal      string             `json:"signal,omitempty"`
	Test        []string           `json:"test,omitempty"`
}

type stage struct {
	Name     string    `json:"name"`
	Base     string    `json:"base"`
	Commands []command `json:"commands"`
}

type warning struct {
	Rule   string `json:"rule"`
	Detail string `json:"detail"`
}

type check struct {
	Service  string    `json:"service"`
	Target   string    `json:"target"`
	Warnings []warning `json:"warnings"`
	Error    string    `json:"error,omitempty"`
}

type report struct {
	MetaArguments  map[string]*string `json:"metaArguments"`
	Stages         []stage            `json:"stages"`
	ParserWarnings []string           `json:"parserWarnings"`
	Checks         []check            `json:"checks"`
}

func describe(raw instructions.Command) command {
	described := command{Instruction: strings.ToUpper(raw.Name()), Text: fmt.Sprint(raw)}
	shellForm := func(line instructions.ShellDependantCmdLine) {
		described.CommandLine = line.CmdLine
		form := line.PrependShell
		described.ShellForm = &form
	}
	switch typed := raw.(type) {
	case *instructions.RunCommand:
		shellForm(typed.ShellDependantCmdLine)
	case *instructions.CmdCommand:
		shellForm(typed.ShellDependantCmdLine)
	case *instructions.EntrypointCommand:
		shellForm(typed.ShellDependantCmdLine)
	case *instructions.CopyCommand:
		described.Sources, described.Destination, described.From, described.Parents = typed.SourcePaths, typed.DestPath, typed.From, typed.Parents
	case *instructions.AddCommand:
		described.Sources, described.Destination = typed.SourcePaths, typed.DestPath
	case *instructions.EnvCommand:
		described.Environment = map[string]string{}
		for _, pair := range typed.Env {
			described.Environment[pair.Key] = pair.Value
		}
	case *instructions.ArgCommand:
		described.Arguments = map[string]*string{}
		for _, argument := range typed.Args {
			described.Arguments[argument.Key] = argument.Value
		}
	case *instructions.ExposeCommand:
		described.Ports = typed.Ports
	case *instructions.UserCommand:
		described.User = typed.User
	case *instructions.WorkdirCommand:
		described.Path = typed.Path
	case *instructions.StopSignalCommand:
		described.Signal = typed.Signal
	case *instructions.HealthCheckCommand:
		if typed.Health != nil {
			described.Test = typed.Health.Test
		}
	}
	return described
}

// offlineResolver answers image lookups without a registry: a Linux image with the usual PATH for the known
// images, "not found" for the rest.
type offlineResolver struct{ known map[string]bool }

func (resolver offlineResolver) ResolveImageConfig(_ context.Context, reference string, _ sourceresolver.Opt) (string, digest.Digest, []byte, error) {
	if !resolver.known[reference] {
		return "", "", nil, fmt.Errorf("image %q is not available (only %s are known offline)", reference, strings.Join(sortedKeys(resolver.known), ", "))
	}
	config := []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]},` +
		`"config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]}}`)
	return reference, digest.FromBytes(config), config, nil
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for key := range set {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

func runChecks(source []byte, images map[string]bool, service, target string) check {
	result := check{Service: service, Target: target, Warnings: []warning{}}
	sourceMap := llb.NewSourceMap(nil, "Dockerfile", "Dockerfile", source)
	definition, err := llb.Scratch().Marshal(context.Background())
	if err != nil {
		result.Error = err.Error()
		return result
	}
	sourceMap.Definition = definition
	options := dockerfile2llb.ConvertOpt{
		Config:       dockerui.Config{BuildArgs: map[string]string{"SERVICE": service}, Target: target},
		SourceMap:    sourceMap,
		MetaResolver: offlineResolver{known: images},
	}
	lint, err := dockerfile2llb.DockerfileLint(context.Background(), source, options)
	if err != nil {
		result.Error = err.Error()
		return result
	}
	for _, found := range lint.Warnings {
		result.Warnings = append(result.Warnings, warning{Rule: found.RuleName, Detail: found.Detail})
	}
	if lint.Error != nil {
		result.Error = lint.Error.Message
	}
	return result
}

type listFlag []string

func (values *listFlag) String() string         { return strings.Join(*values, ",") }
func (values *listFlag) Set(value string) error { *values = append(*values, value); return nil }

func main() {
	dockerfile := flag.String("dockerfile", "Dockerfile", "the Dockerfile to inspect")
	var services, targets, images listFlag
	flag.Var(&images, "image", "a base image the offline resolver knows (repeatable)")
	flag.Var(&services, "service", "a value of the SERVICE build argument to check with (repeatable)")
	flag.Var(&targets, "target", "a target stage to check (repeatable; none checks every stage)")
	flag.Parse()

	source, err := os.ReadFile(*dockerfile)
	if err != nil {
		exit(err)
	}
	parsed, err := parser.Parse(bytes.NewReader(source))
	if err != nil {
		exit(err)
	}
	output := report{MetaArguments: map[string]*string{}, Stages: []stage{}, ParserWarnings: []string{}, Checks: []check{}}
	for _, found := range parsed.Warnings {
		output.ParserWarnings = append(output.ParserWarnings, found.Short)
	}
	var instructionWarnings []string
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, message string, _ []parser.Range) {
		instructionWarnings = append(instructionWarnings, rule+": "+message)
	}})
	stages, metaArguments, err := instructions.Parse(parsed.AST, lint)
	if err != nil {
		exit(err)
	}
	output.ParserWarnings = append(output.ParserWarnings, instructionWarnings...)
	for _, argumentCommand := range metaArguments {
		for _, argument := range argumentCommand.Args {
			output.MetaArguments[argument.Key] = argument.Value
		}
	}
	for _, found := range stages {
		described := stage{Name: found.Name, Base: found.BaseName, Commands: []command{}}
		for _, raw := range found.Commands {
			described.Commands = append(described.Commands, describe(raw))
		}
		output.Stages = append(output.Stages, described)
	}
	if len(targets) == 0 {
		targets = listFlag{""}
	}
	known := map[string]bool{}
	for _, image := range images {
		// Stored the way BuildKit asks for it: docker.io/library/node:24-bookworm-slim.
		named, err := reference.ParseNormalizedNamed(image)
		if err != nil {
			exit(fmt.Errorf("-image %q: %w", image, err))
		}
		known[reference.TagNameOnly(named).String()] = true
	}
	for _, service := range services {
		for _, target := range targets {
			output.Checks = append(output.Checks, runChecks(source, known, service, target))
		}
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(output); err != nil {
		exit(err)
	}
}

func exit(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
