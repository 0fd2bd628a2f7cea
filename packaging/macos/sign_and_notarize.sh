#!/usr/bin/env bash
# Sign, notarize and staple agentmaker Desk on macOS (a recipe: needs an Apple Developer
# ID and runs on a Mac only). build.py calls it when MACOS_SIGN_IDENTITY is set:
#
#   sign-app  "dist/agentmaker Desk.app"    sign every Mach-O inside-out, then the bundle
#   sign-dmg  dist/agentmaker-desk-*.dmg    sign the disk image
#   notarize  dist/agentmaker-desk-*.dmg    submit to Apple, wait, staple the ticket
#
# Environment (placeholders; the real values live in CI secrets or the keychain):
#   MACOS_SIGN_IDENTITY   "Developer ID Application: Example Corp (ABCDE12345)"
#   MACOS_NOTARY_PROFILE  a notarytool keychain profile, created once with
#       xcrun notarytool store-credentials agentmaker-notary \
#           --apple-id release@example.com --team-id ABCDE12345 --password <app-specific-password>
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
identity="${MACOS_SIGN_IDENTITY:?set MACOS_SIGN_IDENTITY to a 'Developer ID Application: …' identity}"
command="${1:?usage: sign_and_notarize.sh sign-app|sign-dmg|notarize PATH}"
target="${2:?usage: sign_and_notarize.sh sign-app|sign-dmg|notarize PATH}"

sign() {
  codesign --force --timestamp --options runtime --sign "$identity" "$@"
}

case "$command" in
  sign-app)
    # 1. Every Mach-O file (libraries, extension modules, the executable), deepest first.
    find "$target/Contents" -type f -print0 | while IFS= read -r -d '' file; do
      if file -b "$file" | grep -q "Mach-O"; then
        sign "$file"
      fi
    done
    # 2. Embedded frameworks (Qt), deepest first, then 3. the app with its entitlements.
    find "$target/Contents" -depth -type d -name "*.framework" -print0 | while IFS= read -r -d '' fw; do
      sign "$fw"
    done
    sign --entitlements "$here/entitlements.plist" "$target"
    codesign --verify --deep --strict --verbose=2 "$target"
    ;;
  sign-dmg)
    codesign --force --timestamp --sign "$identity" "$target"
    codesign --verify --verbose=2 "$target"
    ;;
  notarize)
    profile="${MACOS_NOTARY_PROFILE:?set MACOS_NOTARY_PROFILE to a notarytool keychain profile}"
    xcrun notarytool submit "$target" --keychain-profile "$profile" --wait
    xcrun stapler staple "$target"
    xcrun stapler validate "$target"
    spctl --assess --type open --context context:primary-signature --verbose=2 "$target"
    ;;
  *)
    echo "unknown command: $command" >&2
    exit 2
    ;;
esac
