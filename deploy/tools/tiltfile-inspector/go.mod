module mtx.local/deploy/tools/tiltfile-inspector

go 1.25.0

require go.starlark.net v0.0.0-20260908191801-89a6a09411d5

require golang.org/x/sys v0.42.0 // indirect
