#!/usr/bin/env python3
"""Drive a campaign's MCP server the way an agent host does: start it exactly as the campaign's .mcp.json registers it
(command, args, env), do the handshake, list the tools, call the named tools in order, print every reply.

    scripts/mcp-session.py CAMPAIGN_DIR TOOL[=JSON_ARGUMENTS]...     e.g.  eval status 'ask={"event":""}' gate

Exit status: 0 when every call returned a result (a tool's own isError is shown, not fatal), 1 when the server broke
the protocol (a stdout line that is not JSON-RPC, a missing reply) or could not start, 2 on wrong arguments.
It must never edit the campaign: only the server's tools touch it."""
import json
import os
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    campaign = os.path.abspath(argv[1])
    try:
        with open(os.path.join(campaign, ".mcp.json")) as f:
            server = json.load(f)["mcpServers"]["kseek"]
    except (OSError, KeyError, ValueError) as e:
        print(f"mcp-session: {campaign}/.mcp.json has no kseek server ({e}); run `kseek init` there first",
              file=sys.stderr)
        return 2
    calls = []
    for spec in argv[2:]:
        name, _, args = spec.partition("=")
        try:
            calls.append((name, json.loads(args) if args else {}))
        except ValueError as e:
            print(f"mcp-session: the arguments of {name} are not JSON: {e}", file=sys.stderr)
            return 2

    env = dict(os.environ, **server.get("env", {}))
    proc = subprocess.Popen([server["command"], *server.get("args", [])], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env, text=True, cwd=campaign)

    def send(message):
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def reply(wanted_id):
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed stdout before replying to request {wanted_id}")
            message = json.loads(line)  # a non-JSON line on the protocol stream is a protocol error
            if message.get("jsonrpc") != "2.0":
                raise RuntimeError(f"not a JSON-RPC 2.0 message: {line.strip()}")
            if message.get("id") == wanted_id:
                return message

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "kseek mcp-session", "version": "1"}}})
        init = reply(0)
        print(f"== initialize: {init['result']['serverInfo']} protocol {init['result']['protocolVersion']}")
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        print("== tools/list:", [t["name"] for t in reply(1)["result"]["tools"]])
        for i, (name, args) in enumerate(calls, start=2):
            started = time.monotonic()
            send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": args}})
            message = reply(i)
            seconds = time.monotonic() - started
            if "error" in message:
                print(f"== {name} ({seconds:.1f} s): JSON-RPC error {json.dumps(message['error'])}")
                continue
            result = message["result"]
            print(f"== {name} ({seconds:.1f} s){' isError' if result.get('isError') else ''}")
            for block in result.get("content", []):  # what the agent reads (its structuredContent says the same)
                if block.get("type") == "text":
                    print(block["text"])
    except (RuntimeError, ValueError, KeyError) as e:
        print(f"mcp-session: {e}", file=sys.stderr)
        proc.kill()
        return 1
    finally:
        if proc.stdin and not proc.stdin.closed:
            proc.stdin.close()
    return 0 if proc.wait(timeout=60) == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
