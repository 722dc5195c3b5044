"""What a per-file command makes of one file, as a value: ``absint check``, ``bounds``,
``outputs``, ``sample``, ``solve``, ``inputs`` and ``presets`` each have a module here whose
``..._file(path, ...)`` never raises for a bad file (the error is in the report) and whose
report has ``to_json``. The commands (:mod:`absint.cli`) parse, call it and print."""
