complete --keep-order --exclusive --command notes --arguments "(COMPLETE=fish notes -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
