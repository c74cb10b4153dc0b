#!/usr/bin/env python3
"""A real SMTP server for Pinhole's mail tests: aiosmtpd (PyPI, installed by scripts/setup).

  smtp-server.py --port P --mode starttls|tls|plain --maildir DIR
                 [--user U --password W] [--cert C --key K]

`starttls` requires STARTTLS before MAIL, `tls` speaks TLS from the first byte; with --user,
AUTH (PLAIN or LOGIN, over TLS only) is required before MAIL. Each message accepted is written
whole to DIR as <nanoseconds>-<random>.eml, its envelope recipients in an X-Envelope-To header.
Prints "ready <port>" once it accepts connections; runs until killed.
"""
import argparse
import os
import ssl
import sys
import threading
import time
import uuid

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Keep:
    def __init__(self, folder):
        self.folder = folder

    async def handle_DATA(self, server, session, envelope):
        name = f"{time.time_ns():020d}-{uuid.uuid4().hex}.eml"
        path = os.path.join(self.folder, name)
        header = ("X-Envelope-To: " + ", ".join(envelope.rcpt_tos) + "\r\n").encode()
        with open(path + ".partial", "wb") as out:
            out.write(header + envelope.original_content)
        os.rename(path + ".partial", path)
        return "250 2.0.0 kept"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=["starttls", "tls", "plain"], default="starttls")
    parser.add_argument("--maildir", required=True)
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    os.makedirs(args.maildir, exist_ok=True)

    context = None
    if args.mode != "plain":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == args.user.encode()
            and auth_data.password == args.password.encode()
        )
        return AuthResult(success=ok, handled=False)

    options = dict(hostname="127.0.0.1", port=args.port, server_hostname="localhost")
    if args.user:
        # Under implicit TLS aiosmtpd does not count the connection as TLS for AUTH: the whole
        # connection is TLS, so AUTH is allowed on it as it is after STARTTLS.
        options.update(authenticator=authenticate, auth_required=True, auth_require_tls=args.mode == "starttls")
    else:
        options.update(auth_require_tls=False)
    if args.mode == "starttls":
        options.update(tls_context=context, require_starttls=True)
    elif args.mode == "tls":
        options.update(ssl_context=context)
    controller = Controller(Keep(args.maildir), **options)
    controller.start()
    print(f"ready {args.port}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
