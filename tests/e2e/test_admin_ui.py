"""The Admin page in a real browser (headless Chromium) against `drivelab up`.

The admin opens Admin from the navigation, adds a reviewer (a second add with the same name is
refused with the api's message, and what was typed stays), issues the reviewer an API token
(shown once, with the warning), which then works on the api, and revokes it after a
confirmation (the api answers 401 from then on). Disabled, the reviewer cannot sign in;
enabled, it can. Demoting the only active admin shows the api's refusal and keeps the chosen
role. The Audit log tab lists the user and token entries, filtered by action and drive, and
pages back to older entries. A viewer sees no Admin link, and the page tells them it is for
admins.
Screenshots: test-artifacts/screenshots/admin.png and admin-audit.png, and /tmp/admin-page.png.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Stack
from tests.e2e.test_browser import (
    VIEWPORT,
    browser,  # noqa: F401  (the module-scoped fixture, shared)
    shot,
    sign_in,
)
from tests.e2e.test_queue_ui import watch_problems

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

AUDIT_PAGE = 50  # entries per page of the Audit log tab


@contextlib.contextmanager
def own_loop_device(path: Path, taken: set[str]) -> Iterator[str | None]:
    """A loop device over a sparse file of this test's own, detached afterwards; None where
    losetup is unavailable (not root). Not one of `taken`: a loop device that an earlier test
    of the session registered (with its backing file's serial) is another drive's name to the
    api, which registers a new serial there only by another name."""
    with open(path, "wb") as f:
        f.truncate(64 * 1024**2)
    device, held = None, []
    for _ in range(32):
        out = subprocess.run(["losetup", "-f", "--show", str(path)], capture_output=True, text=True)
        if out.returncode != 0:
            break
        attached = out.stdout.strip()
        if attached not in taken:
            device = attached
            break
        held.append(attached)  # kept attached until then, so that -f moves on
    for other in held:
        subprocess.run(["losetup", "-d", other], check=False)
    if device is None:
        yield None
        return
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)


def test_admin_users_tokens_and_audit(browser, stack: Stack) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    name = f"e2e-{secrets.token_hex(3)}"
    token_name = f"script-{secrets.token_hex(2)}"
    with stack.client() as c:
        me = c.get("/api/auth/me").json()
        others = [
            u
            for u in c.get("/api/users").json()
            if u["role"] == "admin" and not u["disabled"] and u["id"] != me["id"]
        ]
    assert not others, f"the last-admin check needs {me['name']} to be the only admin: {others}"

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    # Provoked: the duplicate user and the demotion of the last admin.
    problems = watch_problems(
        page, re.compile(rf"^(POST .*/api/users|PATCH .*/api/users/{me['id']})$")
    )
    try:
        sign_in(page, stack)
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Admin").click()
        expect(page).to_have_url(re.compile(r"/admin$"))
        expect(page.get_by_role("heading", name="Admin", exact=True)).to_be_visible()
        expect(page.get_by_role("tab", name="Users")).to_have_attribute("aria-selected", "true")
        users = page.locator("table.admin-page__users > tbody > tr")
        expect(users.filter(has=page.get_by_label(f"Role of {me['name']}"))).to_have_count(1)

        # 1. Add a reviewer with a password.
        page.get_by_role("button", name="Add a user").click()
        form = page.get_by_role("form", name="Add a user")
        form.get_by_label("Name", exact=True).fill(name)
        form.get_by_label("Role", exact=True).select_option("reviewer")
        form.get_by_label("Password (optional)").fill("e2e-password-1234")
        form.get_by_role("button", name="Add user").click()
        expect(form.get_by_role("status")).to_have_text(f"Added user {name}.")
        row = users.filter(has=page.get_by_label(f"Role of {name}", exact=True))
        expect(row).to_have_count(1)
        expect(page.get_by_label(f"Role of {name}", exact=True)).to_have_value("reviewer")
        expect(row.locator(".badge", has_text="active")).to_be_visible()
        expect(row.locator("td").nth(3)).to_have_text("yes")
        # The same name again: the api's message next to the name, what was typed kept.
        form.get_by_label("Name", exact=True).fill(name.upper())
        form.get_by_label("Password (optional)").fill("another-password-1")
        form.get_by_role("button", name="Add user").click()
        expect(form.locator(".form-field__error")).to_contain_text(
            f"a user named {name.upper()} exists"
        )
        expect(form.get_by_label("Name", exact=True)).to_have_value(name.upper())
        expect(form.get_by_label("Password (optional)")).to_have_value("another-password-1")
        page.get_by_role("button", name="Close").click()

        # 2. Issue a token: shown once, with the warning; it works on the api.
        page.get_by_role("button", name=f"API tokens of {name}").click()
        panel = page.get_by_role("region", name=f"API tokens of {name}")
        expect(panel.get_by_text("No API tokens.")).to_be_visible()
        panel.get_by_label("Token name").fill(token_name)
        panel.get_by_role("button", name="Issue token").click()
        new_token = panel.get_by_label("New API token")
        expect(new_token).to_have_value(re.compile(r"^dla"))
        expect(panel.get_by_role("status")).to_contain_text("it will not be shown again")
        expect(panel.get_by_role("button", name="Copy")).to_be_visible()
        token = new_token.input_value()
        token_row = panel.locator("tbody tr", has_text=token_name)
        expect(token_row.locator(".badge", has_text="active")).to_be_visible()
        page.wait_for_timeout(200)
        shot_path = shot(page, "admin")
        shutil.copyfile(shot_path, "/tmp/admin-page.png")
        with stack.client(token=token) as api:
            r = api.get("/api/drives")
            assert r.status_code == 200, r.text
            assert api.get("/api/auth/me").json()["name"] == name

            # 3. Revoke it, after a confirmation: the api refuses it from then on.
            panel.get_by_role("button", name="Done").click()
            expect(new_token).to_have_count(0)
            panel.get_by_role("button", name=f"Revoke token {token_name} of {name}").click()
            panel.get_by_role("button", name="Keep").click()
            assert api.get("/api/drives").status_code == 200
            panel.get_by_role("button", name=f"Revoke token {token_name} of {name}").click()
            panel.get_by_role(
                "button", name=f"Confirm: revoke token {token_name} of {name}"
            ).click()
            expect(token_row.locator(".badge", has_text="revoked")).to_be_visible()
            expect(token_row.get_by_role("button")).to_have_count(0)
            assert api.get("/api/drives").status_code == 401

        # 4. Disabled after a confirmation, the user cannot sign in; enabled, it can again.
        login = {"name": name, "password": "e2e-password-1234"}
        row.get_by_role("button", name=f"Disable {name}", exact=True).click()
        row.get_by_role("button", name=f"Confirm: disable {name}", exact=True).click()
        expect(row.locator(".badge", has_text="disabled")).to_be_visible()
        with stack.client(token="") as anonymous:
            r = anonymous.post("/api/auth/login", json=login)
            assert r.status_code == 403 and "disabled" in r.json()["detail"], r.text
            row.get_by_role("button", name=f"Enable {name}", exact=True).click()
            expect(row.locator(".badge", has_text="active")).to_be_visible()
            assert anonymous.post("/api/auth/login", json=login).status_code == 200

        # 5. The only active admin stays one: the api's refusal, the chosen role kept.
        role = page.get_by_label(f"Role of {me['name']}", exact=True)
        role.select_option("viewer")
        admin_row = users.filter(has=role)
        admin_row.get_by_role("button", name="Save role").click()
        error = page.get_by_role("alert").filter(has_text="only active admin")
        expect(error).to_contain_text(f"{me['name']} is the only active admin")
        expect(error).to_contain_text("HTTP 409")
        expect(role).to_have_value("viewer")
        admin_row.get_by_role("button", name="Cancel").click()
        expect(role).to_have_value("admin")
        expect(error).to_have_count(0)
        with stack.client() as c:
            assert c.get("/api/auth/me").json()["role"] == "admin"

        # 6. The audit log: the user and its token, filtered by action. A page holds 50
        # entries: 50 sign-in links later, the user's entry is on the next older page.
        with stack.client() as c:
            for _ in range(AUDIT_PAGE):
                assert c.post("/api/auth/links", json={"ttl_s": 60}).status_code == 201
        page.get_by_role("tab", name="Audit log").click()
        expect(page).to_have_url(re.compile(r"/admin\?tab=audit$"))
        audit = page.locator("table.admin-page__audit > tbody > tr")
        created = audit.filter(has_text=f"user {name}").filter(has_text="user.created")
        expect(audit).to_have_count(AUDIT_PAGE)
        expect(audit.first).to_contain_text("login_link.created")
        # Each entry's time says its date too.
        expect(audit.first.locator("time")).to_have_text(
            re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")
        )
        expect(created).to_have_count(0)
        paging = page.locator(".admin-page__paging")
        paging.get_by_role("button", name="Older").click()
        expect(paging.get_by_role("status")).to_contain_text("Older entries, before #")
        expect(created).to_have_count(1)
        expect(created).to_contain_text("role=reviewer")
        expect(created).to_contain_text(me["name"])
        paging.get_by_role("button", name="Newer").click()
        expect(paging.get_by_role("status")).to_have_text("Newest entries")
        expect(created).to_have_count(0)
        filters = page.get_by_role("form", name="Filter the audit log")
        for action in ("user_token.created", "user_token.revoked"):
            filters.get_by_label("Action").fill(action)
            filters.get_by_role("button", name="Filter").click()
            entry = audit.filter(has_text=f"token {token_name} of user {name}")
            expect(entry).to_have_count(1)
            expect(entry.locator("td").nth(1)).to_have_text(action)
            assert all(t == action for t in audit.locator("td:nth-child(2)").all_inner_texts())
        # A drive filter that is not an id is refused by the form; one with no entries is empty.
        filters.get_by_label("Drive id").fill("abc")
        filters.get_by_role("button", name="Filter").click()
        expect(filters.locator(".form-field__error")).to_contain_text("is a drive id")
        filters.get_by_label("Drive id").fill("2147483000")
        filters.get_by_role("button", name="Filter").click()
        expect(page.get_by_text("No entries match these filters.")).to_be_visible()
        filters.get_by_role("button", name="Clear").click()
        expect(audit).to_have_count(AUDIT_PAGE)
        shot(page, "admin-audit")

        # 7. Benches: the devices the local worker sees; a loop device of this test's own,
        # registered as a drive by picking it.
        with stack.client() as c:
            taken = {d["target_path"] for d in c.get("/api/drives").json()}
        with own_loop_device(stack.data_dir / "admin-picked.img", taken) as loop:
            page.get_by_role("tab", name="Benches").click()
            expect(page).to_have_url(re.compile(r"/admin\?tab=benches$"))
            bench = page.locator("[data-bench=local]")
            expect(bench).to_contain_text("online")
            if loop is not None:
                row = bench.locator(f'tr[data-device="{loop}"]')
                # the worker reports its devices within a second or two of a change
                expect(row).to_have_count(1, timeout=30_000)
                row.get_by_role("button", name=f"Register {loop} as a drive").click()
                form = row.get_by_role("form", name=f"Register {loop}")
                form.get_by_label("Vendor").fill("drivelab")
                form.get_by_label("Model").fill(f"Picked {secrets.token_hex(2)}")
                form.get_by_label("Short name").fill("Picked")
                form.get_by_role("button", name="Register").click()
                expect(row).to_contain_text(re.compile(r"drive \d+"))
                with stack.client() as c:
                    devices = c.get("/api/benches/local/devices").json()
                    device = next(d for d in devices if d["path"] == loop)
                    added = next(d for d in c.get("/api/drives").json() if d["target_path"] == loop)
                assert added["serial"] == device["serial"] and added["short_name"] == "Picked"
                assert added["model"]["capacity_bytes"] == device["size_bytes"]
                assert added["simulated"]
            # The disk the system runs from is marked and not offered for registration.
            with stack.client() as c:
                devices = c.get("/api/benches/local/devices").json()
            system = [d for d in devices if d["system"]]
            assert system, devices  # the root filesystem lives on some block device here
            for d in system:
                row = bench.locator(f'tr[data-device="{d["path"]}"]')
                expect(row).to_contain_text("system disk")
                expect(row).to_contain_text("the system runs from it: not offered")
                expect(row.get_by_role("button")).to_have_count(0)

        # 8. A second bench added on the page: its worker command, token included, complete
        # against this installation (tests/test_up.py runs such a command).
        name = f"page-{secrets.token_hex(3)}"
        adding = page.get_by_role("form", name="Add a bench")
        adding.get_by_label("Bench name").fill(name)
        adding.get_by_role("button", name="Add a bench").click()
        command = page.get_by_test_id("worker-command")
        expect(command).to_contain_text(f"drivelab worker --bench {name}")
        lines = command.inner_text().splitlines()
        assert lines[0] == f"export DRIVELAB_API_URL={stack.api_url}", lines
        assert re.fullmatch(r"export DRIVELAB_BROKER_URL=redis://:\w+@127\.0\.0\.1:\d+/0", lines[1])
        token = lines[2].removeprefix("export DRIVELAB_TOKEN=")
        assert token != lines[2]
        with stack.client(token=token) as worker:
            hello = worker.post("/api/worker/hello", json={"host_info": {}})
            assert hello.status_code == 200 and hello.json()["name"] == name, hello.text
        with stack.client() as c:
            # Its hello carried no device report: nothing can be registered on it yet.
            r = c.get(f"/api/benches/{name}/devices")
            assert r.status_code == 409, r.text
            assert f"the worker of bench {name} has not reported its devices yet" in r.text
            assert not next(b for b in c.get("/api/benches").json() if b["name"] == name)[
                "devices_reported"
            ]
        expect(page.get_by_role("status", name=f"Worker command of {name}")).to_contain_text(
            "listens on 127.0.0.1 only"
        )
        expect(page.locator(f"[data-bench={name}]")).to_be_visible()
        shot(page, "admin-benches")
        assert not problems, problems
    finally:
        context.close()


def test_viewer_sees_no_admin_page(browser, stack: Stack) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    viewer = stack.create_user("viewer")
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems = watch_problems(page, re.compile(r"^$"))
    try:
        sign_in(page, stack, viewer.name)
        nav = page.get_by_role("navigation", name="Main")
        expect(nav.get_by_role("link", name="Plans")).to_be_visible()
        expect(nav.get_by_role("link", name="Admin")).to_have_count(0)
        page.goto("/admin")
        note = page.get_by_role("note")
        expect(note).to_contain_text("Admins only")
        expect(note).to_contain_text(f"signed in as {viewer.name} (viewer)")
        expect(page.locator("table")).to_have_count(0)
        # The page asked the api for nothing it would refuse.
        assert not problems, problems
    finally:
        context.close()
