"""`mnemo install`, `mnemo uninstall` and `mnemo doctor`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import mnemosyne

from ..install import InstallError, launcher, locations, manifests, mcp_clients, plan, registry

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

# Imports inside functions: `mnemo --help` loads this module to add its arguments; the tokenizer, the
# ownership check and the doctor load only when their command runs.

BROWSER_CHOICES = [*locations.BROWSERS, plan.ALL]


def _add_target_arguments(p: argparse.ArgumentParser, verb: str) -> None:
    default = "every browser whose profile folder exists" if verb == "install" else "every browser"
    p.add_argument(
        "--browser",
        choices=BROWSER_CHOICES,
        default=plan.ALL,
        help=f"which browser to {verb} for (default: all, meaning {default})",
    )
    p.add_argument(
        "--user-data-dir",
        type=Path,
        metavar="DIR",
        help="one Chromium profile started with --user-data-dir=DIR (uses DIR/NativeMessagingHosts)",
    )
    p.add_argument(
        "--system",
        action="store_true",
        help="the machine-wide locations (/etc, /Library, HKLM) instead of your user's; run as root, from a "
        "root-owned Python. Writes a root-owned launcher that uses each user's own data folder",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="print what would be written or removed, change nothing"
    )


MCP_CHOICES = [*mcp_clients.CLIENTS, mcp_clients.ALL]


def add_install_arguments(p: argparse.ArgumentParser) -> None:
    _add_target_arguments(p, "install")
    p.add_argument(
        "--mcp",
        choices=MCP_CHOICES,
        metavar="CLIENT",
        help="instead of the browsers, add `mnemo mcp` to an MCP client's config: "
        f"{', '.join(MCP_CHOICES)} (all: every client found on this machine)",
    )


def add_uninstall_arguments(p: argparse.ArgumentParser) -> None:
    _add_target_arguments(p, "uninstall")
    p.add_argument(
        "--mcp",
        nargs="?",
        const=mcp_clients.ALL,
        choices=MCP_CHOICES,
        metavar="CLIENT",
        help="instead of the browsers, remove our entry from MCP clients' configs (default: all)",
    )


def add_doctor_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the checks as JSON")


def _warm_tokenizer(dry_run: bool) -> str:
    if dry_run:
        return "would copy the tokenizer files into the cache"
    try:
        from .. import tokens  # (see the imports)

        folder = tokens.ensure_files()
    except Exception as exc:  # the manifests are written already; say clearly what is missing
        print(
            f"mnemo install: warning: tokenizer files not ready ({type(exc).__name__}: {exc}); "
            "token counts will be estimates until `mnemo install` succeeds",
            file=sys.stderr,
        )
        return "tokenizer files: NOT ready (see the warning above)"
    return f"tokenizer files: ready in {folder}"


@contextmanager
def _file_errors(args: argparse.Namespace) -> Iterator[None]:
    """A folder we may not write (often /etc or /Library without --system rights) is a typed error."""
    try:
        yield
    except OSError as exc:
        hint = "; machine-wide locations need root or administrator rights" if args.system else ""
        raise InstallError(f"{exc.strerror or exc}: {exc.filename or ''}{hint}") from None


def _system_install_refusal(system: str) -> str | None:
    """Why a machine-wide install would hand other users' transcripts to code someone else controls."""
    from ..install import ownership  # (see the imports)

    if system == locations.WINDOWS:
        return None  # HKLM and %ProgramData% need an elevated prompt; Windows ACLs are not checked here
    if os.geteuid() != 0:
        return "--system writes machine-wide manifests and a root-owned launcher: run it as root (sudo)"
    interpreter = Path(launcher.current_interpreter())
    package = Path(mnemosyne.__file__).resolve().parent
    unsafe = ownership.problems(interpreter, {0}) + ownership.problems(package, {0})
    if unsafe:
        return (
            "every user's browser would run this Python and package, but they are not root-only: "
            + "; ".join(unsafe[:4])
            + ". Install Mnemosyne into a root-owned Python first (e.g. `sudo python3 -m venv /opt/mnemosyne && "
            "sudo /opt/mnemosyne/bin/pip install .`), then run `sudo /opt/mnemosyne/bin/mnemo install --system`"
        )
    return None


def _client_present(client: mcp_clients.McpClient, path: Path) -> bool:
    """The client's config file, or its own config folder, exists (the home folder does not count)."""
    return path.exists() or (path.parent.exists() and path.parent != Path.home())


def run_mcp(args: argparse.Namespace, removing: bool) -> int:
    from ..install import mcp_config  # (see the imports)

    if args.system or args.user_data_dir is not None or args.browser != plan.ALL:
        raise InstallError(
            "--mcp writes your own MCP clients' configs: --browser, --system and --user-data-dir do not apply"
        )
    system = locations.current_os()
    lines = []
    for client in mcp_clients.chosen(args.mcp):
        path = mcp_clients.config_path(client, system)
        if args.mcp == mcp_clients.ALL and not removing and not _client_present(client, path):
            lines.append(f"{client.label}: not found here ({path}), skipped")
            continue
        entry = mcp_clients.entry(client)
        change = (
            mcp_config.uninstall_change(client, path)
            if removing
            else mcp_config.install_change(client, path, entry)
        )
        if change.text is None:
            state = "no mnemosyne entry" if removing else "already configured"
            lines.append(f"{client.label}: {state} in {path}")
            continue
        if args.dry_run:
            verb = "would remove the mnemosyne entry from" if removing else "would add to"
            shown = "" if removing else "\n" + _entry_text(client, entry)
            lines.append(f"{client.label}: {verb} {path}{shown}")
            continue
        with _file_errors(args):
            mcp_config.apply(change)
        verb = "removed the mnemosyne entry from" if removing else "added mnemosyne to"
        lines.append(f"{client.label}: {verb} {path}")
    print("\n".join(lines))
    if not removing and not args.dry_run:
        print("Restart the client to load it. `mnemo doctor` shows each client's entry.")
    return 0


def _entry_text(client: mcp_clients.McpClient, entry: dict[str, Any]) -> str:
    if client.fmt == mcp_clients.TOML:
        from ..install.mcp_config import toml_block  # (see the imports)

        return toml_block(entry)
    return json.dumps({client.key: {mcp_clients.SERVER_NAME: entry}}, indent=2)


def run_install(args: argparse.Namespace) -> int:
    if args.mcp:
        return run_mcp(args, removing=False)
    system = locations.current_os()
    targets = plan.install_targets(
        args.browser, system, system_scope=args.system, user_data_dir=args.user_data_dir
    )
    if args.system:
        refusal = _system_install_refusal(system)
        if refusal:
            raise InstallError(refusal)
        ignored = [name for name in launcher.EXPORTED_ENV if os.environ.get(name)]
        if ignored:
            print(
                f"mnemo install: note: {', '.join(ignored)} is not written into the machine-wide launcher; "
                "each user's host uses that user's own data folder",
                file=sys.stderr,
            )
    launcher_file = launcher.launcher_path(system, args.system)
    launcher_text = launcher.render(
        system, launcher.current_interpreter(), launcher.current_env(), system_scope=args.system
    )
    if args.dry_run:
        print(f"would write the launcher {launcher_file} (mode 755):\n{launcher_text}")
        for t in targets:
            text = manifests.dumps(manifests.render(t.family, launcher_file))
            print(f"would write {t.describe()} (mode 644):\n{text}")
        print(_warm_tokenizer(dry_run=True))
        return 0
    lines = [f"launcher: {launcher_file} -> {launcher.current_interpreter()}"]
    with _file_errors(args):
        launcher.write(launcher_file, launcher_text, system_scope=args.system)
        for t in targets:
            plan.write_target(t, launcher_file)
            lines.append(f"manifest: {t.describe()}")
        plan.write_record(plan.recorded_plus(targets))
    lines.append(_warm_tokenizer(dry_run=False))
    print("\n".join(lines))
    print("Installed. Load the Mnemosyne extension, then run `mnemo doctor` to check everything.")
    return 0


def _uninstall_targets(args: argparse.Namespace, system: str) -> list[plan.Target]:
    if args.user_data_dir is not None:
        return [plan.profile_target(args.browser, args.user_data_dir, system, system_scope=args.system)]
    browsers = (
        list(locations.BROWSERS.values()) if args.browser == plan.ALL else [locations.browser(args.browser)]
    )
    targets = plan.standard_targets(browsers, system, system_scope=args.system)
    if args.browser == plan.ALL:
        # The record also holds --user-data-dir profiles, which no standard place covers.
        targets += [t for t in plan.read_record() if t.system_scope == args.system]
    return plan.merge_targets(targets)


def _files_still_used(removing: list[plan.Target], system: str) -> set[Path]:
    """Windows: a manifest file stays while another registry key still names it."""
    keep = {t.manifest for t in plan.recorded_minus(removing)}
    if system != locations.WINDOWS:
        return keep
    removing_keys = {t.registry for t in removing}
    for b in locations.BROWSERS.values():
        for system_scope in (False, True):
            where = locations.registry_location(b, system_scope=system_scope)
            value = registry.get_manifest_path(*where) if where not in removing_keys else None
            if value:
                keep.add(Path(value))
    return keep


def run_uninstall(args: argparse.Namespace) -> int:
    if args.mcp:
        return run_mcp(args, removing=True)
    system = locations.current_os()
    targets = _uninstall_targets(args, system)
    removed_all = args.browser == plan.ALL and args.user_data_dir is None
    launcher_file = launcher.launcher_path(system, args.system)

    def same_scope(remaining: list[plan.Target]) -> list[plan.Target]:
        return [t for t in remaining if t.system_scope == args.system]

    if args.dry_run:
        for t in targets:
            if t.manifest.exists() or (t.registry and registry.get_manifest_path(*t.registry)):
                print(f"would remove {t.describe()}")
        if removed_all and not same_scope(plan.recorded_minus(targets)):
            print(f"would remove the launcher {launcher_file}")
        return 0
    with _file_errors(args):
        keep = _files_still_used(targets, system)
        lines = [f"removed {t.describe()}" for t in targets if plan.remove_target(t, keep)]
        remaining = plan.recorded_minus(targets)
        plan.write_record(remaining)
        if removed_all and not same_scope(remaining) and launcher_file.exists():
            launcher_file.unlink()
            lines.append(f"removed the launcher {launcher_file}")
    print("\n".join(lines) if lines else "nothing to remove: no Mnemosyne host manifest was found there")
    print("The archive and its key were left in place.")
    return 0


def run_doctor(args: argparse.Namespace) -> int:
    from .. import doctor  # (see the imports)

    result = doctor.report()
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        marks = {doctor.OK: "ok  ", doctor.WARN: "warn", doctor.FAIL: "FAIL"}
        for c in result["checks"]:
            print(f"[{marks[c['status']]}] {c['name']}: {c['detail']}")
            if c["fix"] and c["status"] != doctor.OK:
                print(f"       fix: {c['fix']}")
    return 0 if result["ok"] else 1
