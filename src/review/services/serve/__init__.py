"""`review serve`: the console in a browser tab, one console process per tab (textual-serve), behind a
token, on loopback unless asked otherwise. Imported only by that command: it loads textual-serve,
aiohttp and jinja2, which no other command needs."""
