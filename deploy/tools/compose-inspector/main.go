// Command compose-inspector loads a compose file with compose-go, the library `docker compose` itself loads
// compose files with, exactly as `docker compose --profile … config` would: JSON Schema validation,
// interpolation with the defaults the file declares, YAML merge keys and anchors, normalisation, profiles,
// and the consistency checks (a dependency on a service that is not there, unknown networks or volumes, …).
// It prints the resolved project as JSON for the deploy tests, or fails with compose's own error message.
//
// The environment is deliberately empty, so every ${VARIABLE:-default} resolves to its default and the result
// does not depend on the caller's shell.
//
// Usage: compose-inspector -file docker-compose.yml [-profiles sim,nats-cluster | -profiles '*']
//
//	compose-inspector -print-schema      # the compose-spec.json JSON Schema compose-go validates with
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/schema"
)

func main() {
	file := flag.String("file", "docker-compose.yml", "the compose file")
	profiles := flag.String("profiles", "", "comma-separated profiles to enable ('*' enables all)")
	printSchema := flag.Bool("print-schema", false, "print compose-go's compose-spec.json and exit")
	flag.Parse()

	if *printSchema {
		fmt.Print(schema.Schema)
		return
	}

	absolute, err := filepath.Abs(*file)
	if err != nil {
		exit(err)
	}
	var enabled []string
	for _, profile := range strings.Split(*profiles, ",") {
		if profile = strings.TrimSpace(profile); profile != "" {
			enabled = append(enabled, profile)
		}
	}
	options, err := cli.NewProjectOptions([]string{absolute},
		cli.WithWorkingDirectory(filepath.Dir(absolute)),
		cli.WithEnv([]string{}),
		cli.WithProfiles(enabled),
		cli.WithInterpolation(true),
		cli.WithResolvedPaths(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
	)
	if err != nil {
		exit(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		exit(err)
	}
	encoded, err := project.MarshalJSON()
	if err != nil {
		exit(err)
	}
	var pretty map[string]any
	if err := json.Unmarshal(encoded, &pretty); err != nil {
		exit(err)
	}
	disabled := make([]string, 0, len(project.DisabledServices))
	for name := range project.DisabledServices {
		disabled = append(disabled, name)
	}
	pretty["x-disabled-services"] = disabled
	output := json.NewEncoder(os.Stdout)
	output.SetIndent("", "  ")
	if err := output.Encode(pretty); err != nil {
		exit(err)
	}
}

func exit(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
