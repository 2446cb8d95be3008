#!/bin/sh
# Deploys the app.
TARGET=prod

# build compiles everything.
build() {
  make all
}

deploy() {
  build
  echo "to $TARGET"
}

deploy
