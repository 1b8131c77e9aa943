#!/usr/bin/env python3
"""The play page in a real browser: headless Chromium driven over WebDriver (chromium-driver).

Starts `pbrain-wuzi play` on a free loopback port and, as a person would, by clicking:
1. plays a whole game against wuzi (level 1), taking the hint's move each time, with an undo
   and a redo on the way, and saves the record as PSQ and SGF;
2. plays a network game between two browser sessions through the invitation link, with a chat
   message and a takeback that the other side accepts;
3. sees renju's forbidden points and has a click on one refused;
4. plays Connect Four: wuzi opens from its book, the hint gives every column's verdict, and two
   people at one screen make a four that the page highlights.

Screenshots go to $WUZI_SHOTS (default target/browser-shots). Usage:
    python3 tests/browser/play_test.py [path/to/pbrain-wuzi]
Needs Debian's chromium, chromium-driver and python3-selenium (.ci/run installs them).
"""

import os
import re
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/pbrain-wuzi"
SHOTS = os.environ.get("WUZI_SHOTS", "target/browser-shots")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync "
    "--disable-dev-shm-usage"
).split()


class Server:
    """`pbrain-wuzi play` on a free port; `url` is the page it printed."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [BIN, "play", "--listen", "127.0.0.1:0", "--threads", "1", *args],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        match = re.search(r"(http://\S+/)", line)
        if not match:
            self.proc.kill()
            raise AssertionError(f"no address in the server's first line: {line!r}")
        self.url = match.group(1)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def browser(size="1280,900"):
    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--window-size={size}")
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='wuzi-chromium-')}")
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver


def wait_until(what, check, timeout=30.0):
    """Polls `check` until it returns something truthy; fails with `what` after `timeout`."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = check()
        except WebDriverException as e:
            last = e
            last_ok = False
        else:
            last_ok = bool(last)
        if last_ok:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def view(d):
    """The game's state as the page last received it."""
    return d.execute_script("return window.wuzi.view")


def moves_on_board(d):
    v = view(d)
    return v["cursor"] if v else 0


def click_square(d, x, y):
    d.find_element(By.CSS_SELECTOR, f'#board rect.hit[data-x="{x}"][data-y="{y}"]').click()


def shot(d, name):
    os.makedirs(SHOTS, exist_ok=True)
    path = os.path.join(SHOTS, name)
    d.save_screenshot(path)
    print(f"  screenshot {path}")


def new_game(d, black="local", white="wuzi", rule="freestyle", level=None, seconds=None):
    """Fills in the new-game dialog (open on a fresh page) and starts the game."""
    wait_until("the new-game dialog", lambda: d.find_element(By.ID, "new-dialog").get_attribute("open") is not None)
    wait_until("the player choices", lambda: d.find_elements(By.CSS_SELECTOR, "#ng-white option"))
    Select(d.find_element(By.ID, "ng-rule")).select_by_value(rule)
    Select(d.find_element(By.ID, "ng-black")).select_by_value(black)
    Select(d.find_element(By.ID, "ng-white")).select_by_value(white)
    rows = d.find_elements(By.CSS_SELECTOR, ".seat-choice")
    if level is not None:
        Select(rows[1].find_element(By.CSS_SELECTOR, "select.level")).select_by_value(str(level))
    if seconds is not None:
        box = rows[1].find_element(By.CSS_SELECTOR, "input.time")
        box.clear()
        box.send_keys(str(seconds))
    d.find_element(By.ID, "ng-create").click()
    wait_until("the game to start", lambda: view(d))


def no_browser_errors(d):
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE" and "status of 4" not in e["message"]]
    assert not errors, errors


def test_game_against_wuzi(server):
    print("game against wuzi level 1, by hint, with undo, redo and saved records")
    downloads = tempfile.mkdtemp(prefix="wuzi-downloads-")
    d = browser()
    try:
        d.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        d.get(server.url)
        new_game(d, level=1, seconds=0.1)
        Select(d.find_element(By.ID, "hint-time")).select_by_value("1000")
        undone = False
        for turn in range(60):
            v = view(d)
            if v["result"]:
                break
            wait_until("black to move", lambda: view(d)["to_move"] == "black" or view(d)["result"])
            if view(d)["result"]:
                break
            before = moves_on_board(d)
            d.find_element(By.ID, "hint").click()
            hint = wait_until("the hint", lambda: (view(d)["hint"] or {}).get("done") and view(d)["hint"])
            x, y = hint["pv"][0]
            click_square(d, x, y)
            wait_until(
                "wuzi's reply",
                lambda: moves_on_board(d) >= before + 2 or view(d)["result"],
            )
            if turn == 2 and not undone:
                # Undo goes back to black's last turn (two moves), redo forward again.
                count = moves_on_board(d)
                d.find_element(By.ID, "undo").click()
                wait_until("the undo", lambda: moves_on_board(d) == count - 2)
                assert view(d)["to_move"] == "black"
                d.find_element(By.ID, "redo").click()
                wait_until("the redo", lambda: moves_on_board(d) == count)
                undone = True
        v = view(d)
        assert v["result"], "the game did not end in 60 turns"
        status = d.find_element(By.ID, "status")
        assert status.get_attribute("data-result") == "black", status.text
        assert status.get_attribute("data-reason") == "five", status.text
        winning = d.find_elements(By.CSS_SELECTOR, "#board circle.stone.winning")
        assert len(winning) >= 5, len(winning)
        assert undone
        d.find_element(By.ID, "show-numbers").click()
        shot(d, "vs-wuzi.png")
        for name in ("save-psq", "save-sgf"):
            d.find_element(By.ID, name).click()
        files = wait_until(
            "the two records to download",
            lambda: sorted(f for f in os.listdir(downloads) if f.endswith((".psq", ".sgf"))),
        )
        wait_until("both records", lambda: len(os.listdir(downloads)) == 2 and not any(f.endswith(".crdownload") for f in os.listdir(downloads)))
        files = sorted(os.listdir(downloads))
        psq = open(os.path.join(downloads, next(f for f in files if f.endswith(".psq")))).read()
        sgf = open(os.path.join(downloads, next(f for f in files if f.endswith(".sgf")))).read()
        assert psq.startswith("Piskvorky 15x15"), psq[:80]
        move_lines = [l for l in psq.splitlines()[1:] if re.fullmatch(r"\d+,\d+,\d+", l)]
        assert len(move_lines) == v["cursor"], (len(move_lines), v["cursor"])
        assert "RE[B+]" in sgf, sgf[:200]
        print(f"  black won by five in {v['cursor']} moves; records {files}")
        no_browser_errors(d)
    finally:
        d.quit()


def test_network_game(server):
    print("network game between two browser sessions")
    host = browser()
    guest = browser("412,915")  # a phone-sized window
    try:
        host.get(server.url)
        new_game(host, black="local", white="remote")
        link = wait_until("the invitation link", lambda: host.find_element(By.ID, "invite-link").get_attribute("value"))
        watch = host.find_element(By.ID, "watch-link").get_attribute("value")
        assert "seat=" in link and "seat=" not in watch, (link, watch)
        guest.get(link)
        wait_until("the guest's board", lambda: view(guest) and view(guest)["you"] == "white")
        assert view(host)["you"] == "black"

        def play(d, x, y, expect):
            click_square(d, x, y)
            for side in (host, guest):
                wait_until(f"{expect} moves on both boards", lambda: moves_on_board(side) == expect)

        play(host, 7, 7, 1)
        play(guest, 7, 8, 2)
        play(host, 8, 7, 3)
        play(guest, 3, 3, 4)
        # The guest takes back the bad move: a request the host accepts.
        guest.find_element(By.ID, "takeback").click()
        wait_until("the request on the host's screen", lambda: host.find_element(By.ID, "request").is_displayed())
        assert "take back" in host.find_element(By.ID, "request-text").text
        shot(host, "network-request.png")
        host.find_element(By.ID, "request-accept").click()
        for side in (host, guest):
            wait_until("the takeback on both boards", lambda: moves_on_board(side) == 3)
        assert view(guest)["to_move"] == "white"
        play(guest, 8, 8, 4)
        # Chat.
        box = host.find_element(By.ID, "chat-input")
        box.send_keys("good luck")
        host.find_element(By.CSS_SELECTOR, "#chat-form button").click()
        wait_until("the chat line on the guest's screen", lambda: "good luck" in guest.find_element(By.ID, "chat-lines").text)
        play(host, 9, 7, 5)
        play(guest, 9, 8, 6)
        play(host, 10, 7, 7)
        play(guest, 10, 8, 8)
        play(host, 11, 7, 9)
        for side in (host, guest):
            wait_until("the result on both screens", lambda: side.find_element(By.ID, "status").get_attribute("data-result") == "black")
        # A spectator sees the game and cannot move.
        host.execute_script("window.open(arguments[0], '_blank')", watch)
        host.switch_to.window(host.window_handles[-1])
        wait_until("the spectator's board", lambda: view(host) and moves_on_board(host) == 9)
        assert view(host)["you"] is None
        assert "clickable" not in (host.find_element(By.ID, "board").get_attribute("class") or "")
        host.switch_to.window(host.window_handles[0])
        shot(host, "network-host.png")
        shot(guest, "network-guest-phone.png")
        no_browser_errors(host)
        no_browser_errors(guest)
        print("  five for black after a takeback and a chat line; both screens agree")
    finally:
        host.quit()
        guest.quit()


def test_renju_forbidden(server):
    print("renju: forbidden points shown, a click on one refused")
    d = browser()
    try:
        d.get(server.url)
        new_game(d, black="local", white="local", rule="renju")
        # Black 6,7 7,7 and 8,6 8,5 (white far away): 8,7 makes two open threes.
        for n, (x, y) in enumerate([(6, 7), (0, 0), (7, 7), (0, 14), (8, 6), (14, 0), (8, 5), (14, 14)], 1):
            click_square(d, x, y)
            wait_until(f"move {n}", lambda: moves_on_board(d) == n)
        mark = wait_until("the forbidden mark", lambda: d.find_elements(By.CSS_SELECTOR, '#board g.forbidden[data-x="8"][data-y="7"]'))
        assert mark
        click_square(d, 8, 7)
        error = wait_until("the refusal", lambda: d.find_element(By.ID, "error").is_displayed() and d.find_element(By.ID, "error").text)
        assert "forbidden" in error, error
        time.sleep(0.3)
        assert moves_on_board(d) == 8
        shot(d, "renju-forbidden.png")
    finally:
        d.quit()


def connect4_game(d, black, white, size="7x6"):
    wait_until("the new-game dialog", lambda: d.find_element(By.ID, "new-dialog").get_attribute("open") is not None)
    wait_until("the player choices", lambda: d.find_elements(By.CSS_SELECTOR, "#ng-white option"))
    Select(d.find_element(By.ID, "ng-game")).select_by_value("connect4")
    Select(d.find_element(By.ID, "ng-c4-size")).select_by_value(size)
    Select(d.find_element(By.ID, "ng-black")).select_by_value(black)
    Select(d.find_element(By.ID, "ng-white")).select_by_value(white)
    before = (view(d) or {}).get("id")
    d.find_element(By.ID, "ng-create").click()
    wait_until("the game to start", lambda: view(d) and view(d)["id"] != before)
    assert view(d)["game"] == "connect4"


def test_connect4(server):
    print("Connect Four: wuzi's book move, the hint's verdicts, a four between two people")
    d = browser()
    try:
        d.get(server.url)
        connect4_game(d, black="wuzi", white="local")
        wait_until("wuzi's first disc", lambda: moves_on_board(d) == 1)
        assert view(d)["moves"][0] == [3, 5], view(d)["moves"]  # the centre column, bottom row
        assert "book" in view(d)["last_thinking"]["score_text"], view(d)["last_thinking"]
        d.find_element(By.ID, "hint").click()
        hint = wait_until("the hint", lambda: (view(d)["hint"] or {}).get("done") and view(d)["hint"])
        assert len(hint["columns"]) == 7, hint
        # Red has the first move's win: every answer of yellow loses.
        assert all(c.startswith("loses") for c in hint["columns"]), hint["columns"]
        labels = wait_until("the verdicts under the board", lambda: d.find_elements(By.CSS_SELECTOR, "#board g.column-verdict"))
        assert len(labels) == 7, len(labels)
        shot(d, "connect4-hint.png")
        # Any square of a column drops the disc to its bottom.
        click_square(d, 2, 0)
        wait_until("the disc and wuzi's answer", lambda: moves_on_board(d) == 3)
        assert view(d)["moves"][1] == [2, 5], view(d)["moves"]
        no_browser_errors(d)

        d.find_element(By.ID, "new-game").click()
        connect4_game(d, black="local", white="local")
        for n, x in enumerate([0, 1, 0, 1, 0, 1, 0], 1):
            click_square(d, x, 0)
            wait_until(f"disc {n}", lambda: moves_on_board(d) == n)
        status = wait_until("the result", lambda: view(d)["result"] and d.find_element(By.ID, "status"))
        assert status.get_attribute("data-result") == "black", status.text
        assert status.get_attribute("data-reason") == "four", status.text
        assert "Red" in status.text and "four in a row" in status.text, status.text
        winning = d.find_elements(By.CSS_SELECTOR, "#board circle.disc.winning")
        assert len(winning) == 4, len(winning)
        shot(d, "connect4-four.png")
        print(f"  {status.text}")
        no_browser_errors(d)
    finally:
        d.quit()


def main():
    started = time.time()
    server = Server()
    try:
        test_game_against_wuzi(server)
        test_network_game(server)
        test_renju_forbidden(server)
        test_connect4(server)
    finally:
        server.stop()
    print(f"browser tests passed in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
